import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../sources/sqlite/sqlite.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { sessionKey } from '../../core/session-key.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

describe('relevance floor', () => {
  function devKb(): TempKb {
    const k = tempKb();
    k.write(
      'documents/pool.md',
      noteText('pool', 'postgres connection pool exhausted in pytest', 'use one engine per test session and roll back each test'),
    );
    k.write(
      'documents/lock.md',
      noteText('lock', 'terraform state lock stuck after a cancelled run', 'force-unlock the state once no run is active'),
    );
    k.write(
      'documents/hook.md',
      noteText('hook', 'stripe webhooks are delivered more than once', 'dedupe on the event id under a unique constraint'),
    );
    return k;
  }

  it('returns only what clears the floor, each result with an absolute relevance', async () => {
    kb = devKb();
    const r = await recallIn(kb, 'postgres connection pool exhausted when running pytest', { floor: 0.5 });
    expect(ids(r)).toEqual(['pool']);
    expect(r.outcome!.results[0]!.relevance).toBeGreaterThan(0.5);
    expect(r.outcome!.abstained).toBeNull();
  });

  it('abstains on an off-topic prompt that shares ordinary words, saying which specific words the KB lacks', async () => {
    kb = devKb();
    const r = await recallIn(kb, 'the kafka consumer group keeps rebalancing after every deploy run', { floor: 0.5 });
    expect(ids(r)).toEqual([]);
    expect(r.outcome!.abstained).toMatch(/no note mentions "kafka", "consumer", "rebalancing"/);
    const json = JSON.parse(r.stdout) as { abstained: string; floor: number; count: number };
    expect(json).toMatchObject({ count: 0, floor: 0.5, abstained: expect.stringContaining('kafka') });
  });

  it('lists what falls under the floor as weak matches when asked (the CLI), never as results', async () => {
    kb = devKb();
    const r = await recallIn(kb, 'the kafka consumer group keeps rebalancing after every deploy run', { floor: 0.5, showWeak: true });
    expect(ids(r)).toEqual([]);
    expect(r.outcome!.weak.length).toBeGreaterThan(0);
    expect(r.outcome!.weak.every((c) => c.relevance < 0.5)).toBe(true);
    const md = await recallIn(kb, 'the kafka consumer group keeps rebalancing after every deploy run', {
      floor: 0.5,
      showWeak: true,
      format: 'markdown',
    });
    expect(md.stdout).toMatch(/^_Weak matches \(relevance below 0\.50; probably not about this\):_\n- \[/);
    expect(md.stdout).not.toContain('Prior learnings');
  });

  it('reads per-caller floors from the environment, falling back on a malformed or out-of-range value', () => {
    const c = loadConfig({
      RECALL_FLOOR_USER_PROMPT: '0.7',
      RECALL_FLOOR: 'lots',
      RECALL_FLOOR_SUBAGENT: '-1',
      RECALL_FLOOR_SESSION_START: '2',
    });
    expect(c.floors).toEqual({ cli: 0.5, sessionStart: 0.4, userPrompt: 0.7, subagent: 0.5 });
    expect(c.warnings).toEqual([
      'RECALL_FLOOR="lots" is not a valid number; using 0.5',
      'RECALL_FLOOR_SESSION_START="2" is outside 0..1; using 0.4',
      'RECALL_FLOOR_SUBAGENT="-1" is outside 0..1; using 0.5',
    ]);
  });

  it('abstains on everyday prompts that share only everyday words with the notes', async () => {
    kb = devKb();
    kb.write(
      'documents/flaky.md',
      noteText('flaky', 'flaky tests fail on CI with fake timers', 'run the async timer APIs and restore real timers'),
    );
    for (const q of ['why did that fail?', 'run the tests again please', 'add error handling here']) {
      const r = await recallIn(kb, q, { floor: 0.5 });
      expect(ids(r)).toEqual([]);
    }
    // A prompt that names the specific thing still finds it.
    expect(ids(await recallIn(kb, 'tests fail only with fake timers in vitest', { floor: 0.5 }))).toEqual(['flaky']);
  });
});

describe('bookkeeping', () => {
  it('logs every recall, logs a gap for an empty result, and records the follow-up diagnostic', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'alpha body'));
    kb.write('documents/b.md', noteText('b', 'beta', 'beta body'));
    await recallIn(kb, 'alpha', { sessionId: 's1' });
    await recallIn(kb, 'beta', { sessionId: 's1' });
    await recallIn(kb, 'zzz nothing matches here', { sessionId: 's1' });
    await recallIn(kb, 'qqq also nothing', { sessionId: 's1', gapLog: false });
    const log = fs
      .readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log.map((l) => l['count'])).toEqual([1, 1, 0, 0]);
    const gaps = fs
      .readFileSync(path.join(kb.state, 'knowledge-gaps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The session is logged as its hash (core/session-key.ts).
    expect(gaps).toEqual([expect.objectContaining({ normalized: 'matches nothing zzz', session_id: sessionKey('s1') })]);
    const metrics = fs
      .readFileSync(path.join(kb.state, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(metrics.map((m) => m['followup'])).toEqual([false, true]);
  });
});

describe('persona short-circuit', () => {
  it('answers an aggregate question from project_persona and falls through otherwise', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'testing style note', 'we test with jest'));
    fs.mkdirSync(kb.state, { recursive: true });
    const db = openDatabase(path.join(kb.state, 'reflect.db'));
    db.exec(`CREATE TABLE project_persona (project_id TEXT, field_name TEXT, value TEXT, confidence REAL)`);
    db.prepare(`INSERT INTO project_persona VALUES ('webapp', 'testing_style', 'jest with msw, no snapshots', 0.9)`).run();
    db.close();
    const env = { CLAUDE_PROJECT_DIR: '/srv/WebApp' };
    const hit = await recallIn(kb, 'what testing style do we use?', { format: 'markdown' }, { env });
    expect(hit.stdout).toBe('testing_style: jest with msw, no snapshots (persona, confidence 0.90)\n');
    const miss = await recallIn(kb, 'testing style note', { format: 'markdown' }, { env });
    expect(miss.outcome!.persona).toBeNull();
  });
});

describe('empty KB', () => {
  it('says there is nothing to recall', async () => {
    kb = tempKb();
    const warnings: string[] = [];
    const r = await recallIn(kb, 'anything', { format: 'markdown' }, { warn: (l) => warnings.push(l) });
    expect(r.stdout).toBe('');
    expect(warnings.join('\n')).toMatch(/no learnings in .*documents; nothing to recall/);
  });
});
