import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { dailyTotals, loadViewData, percentile, usedShare } from '../../cli/view/data.js';
import { esc, h } from '../../cli/view/html.js';
import { hostAllowed, tokenMatches } from '../../cli/view/server.js';

const hook = (ts: string, event: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    ts,
    v: 2,
    kind: 'hook',
    event,
    hook: 'user-prompt-submit',
    session: 's',
    query: 'q',
    injected: [],
    tokens: 0,
    hook_ms: 100,
    ...extra,
  });
const used = (event: string, id: string, yes: boolean): string =>
  JSON.stringify({
    ts: 'x',
    v: 2,
    kind: 'used',
    session: 's',
    event,
    id,
    used: yes,
    evidence: yes ? 'a phrase' : null,
    by: yes ? 'phrase' : null,
  });

function stateWith(lines: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-view-data-'));
  fs.writeFileSync(path.join(dir, 'recall_log.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

describe('loadViewData', () => {
  it('joins verdicts to their hook line by event id (two prompts in one second stay apart) and skips garbage', () => {
    const note = { id: 'n1', title: 't', relevance: 0.9, tokens: 50 };
    const dir = stateWith([
      hook('2026-12-01T10:00:00', 'e1', { injected: [note], tokens: 50 }),
      hook('2026-12-01T10:00:00', 'e2', { injected: [note], tokens: 50 }),
      '{"kind": broken',
      JSON.stringify({ ts: '2026-12-01T10:00:01', query: 'a recall line', results: [] }),
      used('e1', 'n1', true),
      used('e2', 'n1', false),
    ]);
    const d = loadViewData(dir);
    expect(d.events).toHaveLength(2);
    expect(d.skipped).toBe(1);
    expect(d.events.map((e) => e.verdicts.get('n1')?.used)).toEqual([true, false]);
    expect(usedShare(d.events, 'n1')).toEqual({ used: 1, judged: 2, share: 0.5 });
  });

  it('reads nothing, and does not hang, when the log is a FIFO', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-view-fifo-'));
    try {
      execFileSync('mkfifo', [path.join(dir, 'recall_log.jsonl')]);
    } catch {
      return; // no mkfifo here
    }
    expect(loadViewData(dir).events).toEqual([]);
  });
});

describe('dailyTotals', () => {
  it('counts injections, abstentions, tokens and nearest-rank p50/p95 latency per day', () => {
    const lines = Array.from({ length: 20 }, (_, i) =>
      hook(`2026-12-0${i < 10 ? 1 : 2}T10:00:${String(i).padStart(2, '0')}`, `e${i}`, {
        hook_ms: (i % 10) * 10 + 10,
        injected: i % 2 ? [{ id: 'n', title: '', relevance: 1, tokens: 5 }] : [],
        abstained: i % 2 ? null : 'nothing cleared the floor',
        tokens: i % 2 ? 5 : 0,
      }),
    );
    const days = dailyTotals(loadViewData(stateWith(lines)).events);
    expect(days.map((d) => d.day)).toEqual(['2026-12-01', '2026-12-02']);
    expect(days[0]).toMatchObject({ prompts: 10, injections: 5, notes: 5, abstentions: 5, tokens: 25, p50: 50, p95: 100 });
    expect(percentile([], 95)).toBe(0);
  });
});

describe('view safety helpers', () => {
  it('escapes every HTML-significant character, in text and attributes', () => {
    expect(esc(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
    expect(h`<b title="${'"><img onerror=x>'}">${'<i>'}</b>`.html).toBe('<b title="&quot;&gt;&lt;img onerror=x&gt;">&lt;i&gt;</b>');
  });

  it('accepts only the run’s token and a Host naming this server', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches(null, 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
    expect(hostAllowed('127.0.0.1:8377', 8377)).toBe(true);
    expect(hostAllowed('localhost:8377', 8377)).toBe(true);
    expect(hostAllowed('evil.example:8377', 8377)).toBe(false);
    expect(hostAllowed('127.0.0.1:80', 8377)).toBe(false);
    expect(hostAllowed(undefined, 8377)).toBe(false);
  });
});
