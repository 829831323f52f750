import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../sources/sqlite/sqlite.js';
import { of } from 'rxjs';
import { tempKb, noteText, touchLater, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';
import { NO_MODELS, type ModelClient } from '../../core/ports.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

function pair(k: TempKb, oldExtra: Record<string, unknown>): void {
  k.write('documents/old.md', noteText('old', 'deploy with heroku pipelines', 'deploy services via heroku pipeline promote', oldExtra));
  k.write('documents/new.md', noteText('new', 'deploy with fly machines', 'deploy services via fly deploy'));
}

describe('superseded filter', () => {
  it.each([
    ['superseded_by', { superseded_by: 'new' }],
    ['status superseded', { status: 'superseded' }],
    ['status archived', { status: 'archived' }],
  ])('drops a note retired by frontmatter (%s)', async (_name, extra) => {
    kb = tempKb();
    pair(kb, extra);
    const r = await recallIn(kb, 'deploy services');
    expect(ids(r)).toEqual(['new']);
    expect(r.outcome!.drops).toContainEqual(expect.objectContaining({ key: 'old', stage: 'superseded' }));
  });

  it('drops a note that a live note declares it supersedes', async () => {
    kb = tempKb();
    pair(kb, {});
    kb.write('documents/new.md', noteText('new', 'deploy with fly machines', 'deploy services via fly deploy', { supersedes: 'old' }));
    expect(ids(await recallIn(kb, 'deploy services'))).toEqual(['new']);
  });

  it('drops a live copy of a note whose id sits in archived/ or documents/.forgotten/', async () => {
    kb = tempKb();
    pair(kb, {});
    kb.write('archived/old.md', noteText('old', 'archived copy', 'moved out by the UI'));
    kb.write('documents/extra.md', noteText('extra', 'deploy helper', 'deploy services extra'));
    kb.write('documents/.forgotten/extra.md', noteText('extra', 'deploy helper', 'expired copy'));
    expect(ids(await recallIn(kb, 'deploy services'))).toEqual(['new']);
  });

  it('drops a note whose reflect.db ledger row has is_latest = 0', async () => {
    kb = tempKb();
    pair(kb, {});
    fs.mkdirSync(kb.state, { recursive: true });
    const db = openDatabase(path.join(kb.state, 'reflect.db'));
    db.exec(`CREATE TABLE learnings (id TEXT, artifact_path TEXT, content_hash TEXT, is_latest INTEGER DEFAULT 1)`);
    db.prepare(`INSERT INTO learnings VALUES ('x1', ?, 'h', 0)`).run('/home/u/.learnings/documents/old.md');
    db.prepare(`INSERT INTO learnings VALUES ('x2', ?, 'h2', 1)`).run('/home/u/.learnings/documents/new.md');
    db.close();
    expect(ids(await recallIn(kb, 'deploy services'))).toEqual(['new']);
  });

  it('keeps retired notes with REFLECT_RECALL_INCLUDE_SUPERSEDED=1', async () => {
    kb = tempKb();
    pair(kb, { superseded_by: 'new' });
    const r = await recallIn(kb, 'deploy services', {}, { env: { REFLECT_RECALL_INCLUDE_SUPERSEDED: '1' } });
    expect(ids(r).sort()).toEqual(['new', 'old']);
  });
});

describe('ranking and filters', () => {
  it('ranks the note BM25 prefers first even when a weaker match has stronger boosts', async () => {
    kb = tempKb();
    kb.write(
      'documents/exact.md',
      noteText('exact', 'tmux kill-server destroys sessions', 'tmux kill-server ends every tmux session on the socket', {
        confidence: 'low',
      }),
    );
    kb.write(
      'documents/boosted.md',
      noteText('boosted', 'session cookies', 'server-side sessions with a shared store', { confidence: 'high', proof_count: 50 }),
    );
    expect(ids(await recallIn(kb, 'tmux kill-server destroyed all my sessions'))[0]).toBe('exact');
  });

  it('lets the bounded boosts order near-equal matches (higher confidence first)', async () => {
    kb = tempKb();
    kb.write('documents/lo.md', noteText('lo', 'redis pool sizing', 'size the redis pool', { confidence: 'low' }));
    kb.write('documents/hi.md', noteText('hi', 'redis pool sizing', 'size the redis pool', { confidence: 'high' }));
    const r = await recallIn(kb, 'redis pool sizing');
    expect(ids(r)).toEqual(['hi', 'lo']);
    const [hi, lo] = r.outcome!.results;
    expect(hi!.boosts.confidence).toBeCloseTo(1.1);
    expect(lo!.boosts.confidence).toBeCloseTo(0.9);
  });

  it('applies --confidence, quarantine and --limit', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'cache key', 'cache key design', { confidence: 'high' }));
    kb.write('documents/b.md', noteText('b', 'cache key', 'cache key design', { confidence: 'low' }));
    kb.write('documents/q.md', noteText('q', 'cache key', 'cache key design', { confidence: 'high', quarantine: true }));
    expect(ids(await recallIn(kb, 'cache key', { confidence: 'HIGH' }))).toEqual(['a']);
    expect(ids(await recallIn(kb, 'cache key', { includeQuarantined: true, confidence: 'HIGH' })).sort()).toEqual(['a', 'q']);
    expect(ids(await recallIn(kb, 'cache key', { limit: 1 }))).toHaveLength(1);
  });

  it('empties an out-of-domain result with --min-overlap and flags it', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres deadlock', 'lock ordering prevents postgres deadlocks'));
    const gated = await recallIn(kb, 'postgres service mesh sidecar injection istio', { minOverlap: 0.5 });
    expect(gated.outcome!.oodGated).toBe(true);
    expect(ids(gated)).toEqual([]);
    const passed = await recallIn(kb, 'postgres deadlock lock ordering', { minOverlap: 0.5 });
    expect(passed.outcome!.oodGated).toBe(false);
    expect(ids(passed)).toEqual(['a']);
  });

  it('keeps notes in order within --max-tokens, always keeping the first', async () => {
    kb = tempKb();
    for (let i = 0; i < 4; i += 1) kb.write(`documents/n${i}.md`, noteText(`n${i}`, `budget note ${i}`, `budget ${'word '.repeat(80)}`));
    const all = await recallIn(kb, 'budget note');
    const one = await recallIn(kb, 'budget note', { maxTokens: 10 });
    expect(ids(all)).toHaveLength(4);
    expect(ids(one)).toEqual([ids(all)[0]]);
  });

  it('uses cross-encoder scores when a model client provides them', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha topic words', 'alpha topic words alpha'));
    kb.write('documents/b.md', noteText('b', 'beta topic', 'topic words'));
    const models: ModelClient = {
      ...NO_MODELS,
      models: { ce: 'fake', embed: null },
      rerank: () =>
        of({
          available: true as const,
          model: 'fake',
          scores: new Map([
            ['a', -4],
            ['b', 4],
          ]),
        }),
      embed: () => of({ available: false as const, error: 'none' }),
    };
    const r = await recallIn(kb, 'topic words', {}, { models });
    expect(ids(r)).toEqual(['b', 'a']);
    expect(r.outcome!.results[0]!.ce).toBe(4);
  });
});

describe('temporal arm', () => {
  it('surfaces notes dated inside the window of a date phrase', async () => {
    kb = tempKb();
    const day = (d: Date): string => d.toISOString().slice(0, 10);
    const recent = new Date(Date.now() - 2 * 86_400_000);
    kb.write('documents/recent.md', noteText('recent', 'unrelated title', 'nothing in common', { created: day(recent) }));
    kb.write('documents/old.md', noteText('old', 'unrelated title', 'nothing in common', { created: '2020-01-01' }));
    const r = await recallIn(kb, 'what did we learn in the last 3 days');
    // "learn" also matches both notes' "## Learning" heading lexically; only the window separates them.
    expect(ids(r)[0]).toBe('recent');
    expect(r.outcome!.results[0]!.ranks).toHaveProperty('temporal', 1);
    expect(r.outcome!.temporal).not.toBeNull();
    const off = await recallIn(kb, 'what did we learn in the last 3 days', {}, { env: { RECALL_TEMPORAL_ARM: '0' } });
    expect(off.outcome!.results.every((c) => c.ranks.temporal === undefined)).toBe(true);
    expect(off.outcome!.arms.find((a) => a.arm === 'temporal')).toMatchObject({ status: 'disabled', message: 'RECALL_TEMPORAL_ARM=0' });
  });
});

describe('cache', () => {
  it('serves an exact and a fuzzy hit, and is invalidated by a KB edit', async () => {
    kb = tempKb();
    const abs = kb.write('documents/a.md', noteText('a', 'configure postgres connection pool sizing', 'pool sizing guide'));
    const q1 = 'how should I configure postgres connection pool sizing';
    const first = await recallIn(kb, q1, { cache: true });
    expect(first.outcome!.cacheTier).toBeNull();
    expect((await recallIn(kb, q1, { cache: true })).outcome!.cacheTier).toBe('exact');
    const fuzzy = await recallIn(kb, 'configure the postgres connection pool sizing', { cache: true });
    expect(fuzzy.outcome!.cacheTier).toBe('fuzzy');
    expect(ids(fuzzy)).toEqual(['a']);
    kb.write('documents/a.md', noteText('a', 'configure postgres connection pool sizing', 'edited guide'));
    touchLater(abs);
    expect((await recallIn(kb, q1, { cache: true })).outcome!.cacheTier).toBeNull();
  });

  it('never serves a fuzzy hit to a prompt whose specific word differs, however long the shared rest', async () => {
    kb = tempKb();
    kb.write('documents/t.md', noteText('tf', 'terraform state lock stuck after a cancelled deploy', 'force-unlock the terraform state'));
    kb.write('documents/r.md', noteText('rd', 'redis connection reset after a cancelled deploy', 'enable tcp keepalive for redis'));
    const stem = 'after we cancelled the deploy pipeline yesterday the next run failed with a lock error and the retry also failed in';
    const tf = await recallIn(kb, `${stem} terraform`, { cache: true });
    expect(ids(tf)[0]).toBe('tf');
    const rd = await recallIn(kb, `${stem} redis`, { cache: true });
    expect(rd.outcome!.cacheTier).toBeNull();
    expect(ids(rd)[0]).toBe('rd');
    // A difference in a generic word still reuses the fetch.
    const again = await recallIn(kb, `${stem} terraform please`, { cache: true });
    expect(again.outcome!.cacheTier).toBe('fuzzy');
  });

  it('keeps fetches made under other arm settings apart: a changed episode weight or arm switch is a miss', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'configure postgres connection pool sizing', 'pool sizing guide'));
    const q = 'how should I configure postgres connection pool sizing';
    await recallIn(kb, q, { cache: true });
    expect((await recallIn(kb, q, { cache: true })).outcome!.cacheTier).toBe('exact');
    const variants: Record<string, string>[] = [
      { RECALL_EPISODE_WEIGHT: '0' },
      { RECALL_GRAPH_ARM: '0' },
      { RECALL_TEMPORAL_ARM: '0' },
      // Retired notes kept as candidates: a fetch made without them would hide them.
      { REFLECT_RECALL_INCLUDE_SUPERSEDED: '1' },
    ];
    for (const env of variants) {
      expect((await recallIn(kb, q, { cache: true }, { env })).outcome!.cacheTier).toBeNull();
      expect((await recallIn(kb, q, { cache: true }, { env })).outcome!.cacheTier).toBe('exact');
    }
  });

  it('misses after the TTL and never reads or writes with --no-cache', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'ttl topic', 'ttl body'));
    let now = Date.now();
    await recallIn(kb, 'ttl topic', { cache: true }, { now: () => now });
    now += 3601_000;
    expect((await recallIn(kb, 'ttl topic', { cache: true }, { now: () => now })).outcome!.cacheTier).toBeNull();
    fs.rmSync(path.join(kb.state, 'recall_cache'), { recursive: true, force: true });
    await recallIn(kb, 'ttl topic', { cache: false });
    expect(fs.existsSync(path.join(kb.state, 'recall_cache'))).toBe(false);
  });
});
