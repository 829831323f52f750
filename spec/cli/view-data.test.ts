import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { dailyTotals, loadViewData, noteUses, optionalMissing, percentile, usedShare } from '../../cli/view/data.js';
import { esc, h, humanTime, plural } from '../../cli/view/html.js';
import { sessionsPage, stageRuns } from '../../cli/view/pages.js';
import { notesFilter, notesPage } from '../../cli/view/notes-page.js';
import { createViewAuth } from '../../cli/view/auth.js';
import { hostAllowed, sameOrigin, tokenMatches } from '../../cli/view/server.js';
import { withHowToApply } from '../../pipeline/notes/index.js';
import { parseNote } from '../../core/note/index.js';

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

describe('what a person reads', () => {
  const now = new Date(2026, 11, 5, 21, 30); // Sat 5 Dec 2026, 21:30 local

  it('says times the way a person does: today, yesterday, a weekday this week, a date before', () => {
    expect(humanTime('2026-12-05T09:07:03', now)).toBe('today 09:07');
    expect(humanTime('2026-12-04T23:59:59', now)).toBe('yesterday 23:59');
    expect(humanTime('2026-12-01T10:00:00', now)).toBe('Tue 10:00');
    expect(humanTime('2026-11-28T10:00:00', now)).toBe('28 Nov 10:00');
    expect(humanTime('2025-12-05T10:00:00', now)).toBe('5 Dec 2025 10:00');
    expect(humanTime('not a time', now)).toBe('not a time');
  });

  it('counts in words: 1 prompt, 2 prompts, 0 notes', () => {
    expect(plural(1, 'prompt')).toBe('1 prompt');
    expect(plural(2, 'prompt')).toBe('2 prompts');
    expect(plural(0, 'note')).toBe('0 notes');
  });

  it('cuts the stages of several KBs, logged one after the other, into one run per KB', () => {
    const one = [
      { stage: 'cache', ms: 1 },
      { stage: 'arms', ms: 5 },
      { stage: 'arm:bm25', ms: 4 },
      { stage: 'fuse', ms: 1 },
    ];
    expect(stageRuns(one)).toEqual([one]);
    const second = [
      { stage: 'cache', ms: 2 },
      { stage: 'arm:bm25', ms: 3 },
      { stage: 'fuse', ms: 1 },
    ];
    expect(stageRuns([...one, ...second])).toEqual([one, second]);
    expect(stageRuns([])).toEqual([]);
  });

  it('names each KB’s stages when the prompt read the view’s KBs, and numbers them otherwise', () => {
    const stages = [
      { stage: 'arms', ms: 5 },
      { stage: 'arm:bm25', ms: 4 },
      { stage: 'fuse', ms: 1 },
      { stage: 'arm:bm25', ms: 3 },
      { stage: 'fuse', ms: 2 },
    ];
    const data = loadViewData(stateWith([hook('2026-12-05T10:00:00', 'e1', { kb: '/kb/a', stages })]));
    const ctx = { nonce: 'n', csrf: 'c', now };
    const kbs = [
      { root: '/kb/a', label: 'KB a' },
      { root: '/kb/b', label: 'Claude Code memory' },
    ];
    expect(sessionsPage(ctx, data, kbs)).toContain(
      ' · KB a: arms 5, fuse 1 ms · arms: bm25 4 ms · Claude Code memory: fuse 2 ms · arms: bm25 3 ms',
    );
    expect(sessionsPage(ctx, data, [kbs[1]!, kbs[0]!])).toContain(' · KB 1 of 2: arms 5, fuse 1 ms · arms: bm25 4 ms · KB 2 of 2: ');
    expect(sessionsPage(ctx, data)).toContain(' · KB 1 of 2: ');
  });

  it('gathers the optional parts not installed (once, KB labels dropped) and leaves timeouts, errors and indexing out', () => {
    const dir = stateWith([
      hook('2026-12-01T10:00:00', 'e1', { degraded: ['arm:vector:unavailable', 'rerank:unavailable'] }),
      hook('2026-12-01T10:00:01', 'e2', { degraded: ['arm:vector [.learnings]:unavailable', 'arm:bm25:timeout'] }),
      hook('2026-12-01T10:00:02', 'e3', { degraded: ['index:unavailable'] }),
    ]);
    expect(optionalMissing(loadViewData(dir).events)).toEqual({ parts: ['arm:vector', 'rerank'], prompts: 2 });
  });

  it('counts each note’s injections, used and not-used verdicts, dedupes and last use', () => {
    const note = { id: 'n1', title: 't', relevance: 0.9, tokens: 50 };
    const dir = stateWith([
      hook('2026-12-01T10:00:00', 'e1', { injected: [note] }),
      hook('2026-12-02T10:00:00', 'e2', { injected: [note] }),
      hook('2026-12-03T10:00:00', 'e3', { injected: [note] }),
      hook('2026-12-04T10:00:00', 'e4', { deduped: ['n1'] }),
      used('e1', 'n1', true),
      used('e2', 'n1', false),
    ]);
    expect(noteUses(loadViewData(dir).events).get('n1')).toEqual({
      injected: 3,
      used: 1,
      notUsed: 1,
      deduped: 1,
      last: '2026-12-03T10:00:00',
    });
  });
});

describe('withHowToApply', () => {
  const fm = '---\nid: n1\ntitle: "T"\n---\n';
  const readBack = (text: string): string => parseNote(text, 'documents/n1.md', 'documents').howToApply;

  it('replaces the line recall shows and keeps the rest of the note', () => {
    const text = `${fm}# T\n\nInsight.\n\n**How to apply:** old line\nsecond line of the paragraph\n\nMore body.\n`;
    const next = withHowToApply(text, 'new line');
    expect(readBack(next)).toBe('new line');
    expect(next).toBe(`${fm}# T\n\nInsight.\n\n**How to apply:** new line\nsecond line of the paragraph\n\nMore body.\n`);
  });

  it('adds the line to a note that has none, and never touches a How to apply inside the frontmatter', () => {
    const text = `---\nid: n1\nsummary: "**How to apply:** in a header"\n---\n# T\n\nInsight.\n`;
    const next = withHowToApply(text, 'do this');
    expect(readBack(next)).toBe('do this');
    expect(next.startsWith('---\nid: n1\nsummary: "**How to apply:** in a header"\n---\n')).toBe(true);
    expect(next.endsWith('Insight.\n\n**How to apply:** do this\n')).toBe(true);
  });

  it('writes a replacement holding $& or $1 as text', () => {
    expect(readBack(withHowToApply(`${fm}**How to apply:** x\n`, 'use $& and $1 literally'))).toBe('use $& and $1 literally');
  });
});

describe('recall view sign-in', () => {
  it('trades a one-time code for one session only, and the token for any number', () => {
    const auth = createViewAuth(8377, 'the-token');
    const code = auth.issueCode();
    const first = auth.redeem('code', code);
    expect('session' in first).toBe(true);
    const again = auth.redeem('code', code);
    expect(again).toEqual({ refused: expect.stringMatching(/already used/) });
    expect(auth.redeem('code', 'made-up')).toEqual({ refused: expect.stringMatching(/not a code/) });
    expect('session' in auth.redeem('t', 'the-token')).toBe(true);
    expect('session' in auth.redeem('t', 'the-token')).toBe(true);
    expect(auth.redeem('t', 'wrong')).toEqual({ refused: expect.stringMatching(/forbidden/) });
  });

  it('knows its own sessions by their cookie, and gives each its own CSRF token', () => {
    const auth = createViewAuth(8377);
    const a = auth.redeem('t', auth.token) as { session: string };
    const b = auth.redeem('t', auth.token) as { session: string };
    expect(auth.cookie(a.session)).toBe(`recall_view_8377=${a.session}; Path=/; HttpOnly; SameSite=Strict`);
    expect(auth.sessionOf(`other=1; recall_view_8377=${a.session}`)).toBe(a.session);
    expect(auth.sessionOf(`recall_view_8377=forged`)).toBeNull();
    expect(auth.sessionOf(`recall_view_9999=${a.session}`)).toBeNull();
    expect(auth.sessionOf(undefined)).toBeNull();
    expect(auth.csrfOf(a.session)).not.toBe(auth.csrfOf(b.session));
    // Another run's CSRF token for the same session value is not this run's.
    expect(createViewAuth(8377).csrfOf(a.session)).not.toBe(auth.csrfOf(a.session));
  });

  it('takes a POST only from its own origin', () => {
    expect(sameOrigin({ origin: 'http://127.0.0.1:8377' }, 8377)).toBe(true);
    expect(sameOrigin({ origin: 'http://localhost:8377', 'sec-fetch-site': 'same-origin' }, 8377)).toBe(true);
    expect(sameOrigin({ origin: 'http://127.0.0.1:9999' }, 8377)).toBe(false);
    expect(sameOrigin({ origin: 'http://127.0.0.1:8377', 'sec-fetch-site': 'same-site' }, 8377)).toBe(false);
    expect(sameOrigin({ origin: 'null' }, 8377)).toBe(false);
    expect(sameOrigin({}, 8377)).toBe(false);
  });
});

describe('the Notes page', () => {
  const note = (i: number) => ({
    id: `n${i}`,
    title: i % 2 ? 'redis eviction' : 'postgres pool',
    keyInsight: '',
    howToApply: '',
    date: null,
    confidence: 'MEDIUM',
    tags: [],
    state: 'live' as const,
    supersededBy: null,
    path: `documents/n${i}.md`,
    frontmatter: {},
  });
  const source = (root: string, n: number, from = 0) => ({
    root,
    kind: 'configured' as const,
    reason: 'test',
    readOnly: false,
    notes: Array.from({ length: n }, (_, i) => note(from + i)),
  });
  const ctx = { nonce: 'n', csrf: 'c', now: new Date(2026, 11, 5) };
  const empty = loadViewData(stateWith([]));
  const rows = (html: string): number => (html.match(/<tr data-id=/g) ?? []).length;

  it('draws at most 500 rows and says how many matched; the total counts every source whatever the filter', () => {
    const sources = [source('/kb/a', 600), source('/kb/b', 3, 600)];
    const all = notesPage(ctx, sources, empty, notesFilter(new URLSearchParams()));
    expect(rows(all)).toBe(500);
    expect(all).toContain('(603 notes); 603 notes match, the first 500 shown: narrow the filter.');
    const b = notesPage(ctx, sources, empty, notesFilter(new URLSearchParams({ source: '/kb/b' })));
    expect(rows(b)).toBe(3);
    expect(b).toContain('(603 notes); 3 notes shown.');
    const redis = notesPage(ctx, sources, empty, notesFilter(new URLSearchParams({ q: 'REDIS eviction', source: '/kb/b' })));
    expect(rows(redis)).toBe(1);
  });
});
