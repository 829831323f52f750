/**
 * The whole recall$ under a test scheduler with fake ports: arms are cold observables with timing,
 * the models, the cache and the retired-note lookups are fakes. Asserts order, teardown, timeouts,
 * cache behaviour and that every failure ends up as a degradation in the outcome.
 */
import { describe, it, expect } from '@jest/globals';
import { map, NEVER, of, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { NO_MODELS, type CachedFetch, type CachePort, type FetchToStore, type ModelClient, type RerankResult } from '../../core/ports.js';
import type { ArmHit, RecallOutcome } from '../../core/types.js';
import type { ArmSpec } from '../../operators/run-arms.js';
import type { TraceEvent } from '../../operators/trace-stage.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { recall$, type RecallDeps, type RecallRequest } from '../../pipeline/recall/recall.js';
import { note } from '../helpers/notes.js';
import { scheduler } from '../operators/states.js';

const pool = note({ id: 'pool', title: 'postgres pool exhausted' }, 'raise the postgres pool size when the pool is exhausted');
const tuning = note({ id: 'tuning', title: 'postgres tuning' }, 'postgres pool tuning and pool limits');

const REQUEST: RecallRequest = {
  query: 'postgres pool exhausted',
  limit: 5,
  mode: 'naive',
  confidence: 'ANY',
  tags: [],
  domainHint: '',
  minOverlap: 0,
  maxTokens: 0,
  noCache: false,
  cacheTtlSec: 3600,
  includeQuarantined: false,
  mmr: false,
  mmrLambda: 0.7,
  floor: 0,
  keepWeak: false,
};

function fakeCache(hit: CachedFetch | null | Error = null): CachePort & { writes: FetchToStore[] } {
  const writes: FetchToStore[] = [];
  return {
    writes,
    read: () => {
      if (hit instanceof Error) throw hit;
      return hit;
    },
    write: (f) => void writes.push(f),
  };
}

function models(rerank: Observable<RerankResult>): ModelClient {
  return { ...NO_MODELS, rerank: () => rerank, models: { ce: 'fake-ce', embed: null } };
}

interface Fakes {
  ts: TestScheduler;
  arms: (plan: unknown) => ArmSpec[];
  models?: ModelClient;
  cache?: CachePort;
  trace?: (e: TraceEvent) => void;
  engineFallbacks?: string[];
}

function deps(f: Fakes): RecallDeps {
  const config = { ...loadConfig({}), ceTimeoutMs: 8, embedTimeoutMs: 8, crossEncoder: true };
  return {
    config,
    scope: { root: '/kb', kind: 'explicit', project: '', branch: '', reason: '--kb' },
    models: f.models ?? NO_MODELS,
    now: () => f.ts.now(),
    scheduler: f.ts,
    currentProject: () => '',
    ledger: () => null,
    extractTemporal: () => null,
    engineFallbacks: f.engineFallbacks ?? [],
    arms: f.arms,
    cache: f.cache ?? fakeCache(),
    retired: () => ({ supersededBy: () => new Map(), retiredCopies: () => [], ledgerRetired: () => [] }),
    storedVectors: () => new Map(),
    weighTerms: (stems) => ({ live: 100, df: new Map(stems.map((s) => [s, 2])), info: new Map(stems.map((s) => [s, 0.7])) }),
    ...(f.trace ? { trace: f.trace } : {}),
  };
}

const hits = (...list: [typeof pool, number][]): ArmHit[] => list.map(([n, score]) => ({ note: n, score }));
const summary = (o: RecallOutcome) => ({
  ids: o.results.map((c) => c.note.key),
  arms: o.arms.map((a) => `${a.arm}:${a.status}`),
  degraded: o.degraded.map((d) => `${d.stage}:${d.reason}`),
  cacheTier: o.cacheTier,
});

describe('recall$', () => {
  it('runs the arms under their timeouts, tears a slow arm down, lets the cross-encoder reorder, and answers when the models have', () => {
    const ts = scheduler();
    const cache = fakeCache();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const bm25 = cold<ArmHit[]>('--a|', { a: hits([pool, 3], [tuning, 2]) });
      const vector = cold<ArmHit[]>('----------v|', { v: hits([tuning, 0.9]) });
      const ce = cold<RerankResult>('---(r|)', {
        r: {
          available: true,
          model: 'fake-ce',
          scores: new Map([
            ['tuning', 4],
            ['pool', -2],
          ]),
        },
      });
      const arms = () =>
        [
          { arm: 'vector', source: vector, timeoutMs: 5 },
          { arm: 'bm25', source: bm25, timeoutMs: 5 },
          { arm: 'graph', source: NEVER, timeoutMs: 5, disabled: 'RECALL_GRAPH_ARM=0' },
        ] as ArmSpec[];
      // Arms settle at 5 (the vector arm's timeout), the cross-encoder answers 3 frames later.
      expectObservable(recall$(REQUEST, deps({ ts, arms, models: models(ce), cache })).pipe(map(summary))).toBe('--------(o|)', {
        o: {
          ids: ['tuning', 'pool'],
          arms: ['vector:timeout', 'bm25:ok', 'graph:disabled'],
          degraded: ['arm:vector:timeout'],
          cacheTier: null,
        },
      });
      expectSubscriptions(vector.subscriptions).toBe('^----!');
      expectSubscriptions(bm25.subscriptions).toBe('^-!');
      expectSubscriptions(ce.subscriptions).toBe('-----^--!');
    });
    // A fetch that lost an arm to a timeout is not cached: the next call retries it.
    expect(cache.writes).toEqual([]);
  });

  it('stores a complete fetch once, and serves the next recall from the cache without running the arms or the models', () => {
    const ts = scheduler();
    const cache = fakeCache();
    ts.run(({ cold, expectObservable }) => {
      const arms = () => [{ arm: 'bm25', source: cold<ArmHit[]>('-a|', { a: hits([pool, 3], [tuning, 1]) }), timeoutMs: 5 }] as ArmSpec[];
      expectObservable(recall$(REQUEST, deps({ ts, arms, cache })).pipe(map(summary))).toBe('-(o|)', {
        // No cross-encoder installed: a degradation of the fetch, stored with it.
        o: { ids: ['pool', 'tuning'], arms: ['bm25:ok'], degraded: ['rerank:unavailable'], cacheTier: null },
      });
    });
    expect(cache.writes.map((w) => w.candidates.map((c) => c.note.key))).toEqual([['pool', 'tuning']]);

    const ts2 = scheduler();
    const stored = cache.writes[0]!;
    const hit = fakeCache({ tier: 'exact', ...stored });
    ts2.run(({ cold, expectObservable, expectSubscriptions }) => {
      const bm25 = cold<ArmHit[]>('-a|', { a: [] });
      const ce = cold<RerankResult>('-r|', { r: { available: false, error: 'unused' } });
      const arms = () => [{ arm: 'bm25', source: bm25, timeoutMs: 5 }] as ArmSpec[];
      expectObservable(recall$(REQUEST, deps({ ts: ts2, arms, models: models(ce), cache: hit })).pipe(map(summary))).toBe('(o|)', {
        o: { ids: ['pool', 'tuning'], arms: ['bm25:ok'], degraded: ['rerank:unavailable'], cacheTier: 'exact' },
      });
      expectSubscriptions(bm25.subscriptions).toBe([]);
      expectSubscriptions(ce.subscriptions).toBe([]);
    });
    expect(hit.writes).toEqual([]);
  });

  it('records every failure as a degradation, engine and cache problems first, and still answers', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const arms = () =>
        [
          { arm: 'bm25', source: cold<ArmHit[]>('-a|', { a: hits([pool, 3]) }), timeoutMs: 5 },
          { arm: 'vector', source: cold<ArmHit[]>('-#', undefined, new Error('vector index damaged')), timeoutMs: 5 },
        ] as ArmSpec[];
      const silentModel = models(NEVER);
      const out$ = recall$(
        REQUEST,
        deps({ ts, arms, models: silentModel, cache: fakeCache(new Error('EACCES')), engineFallbacks: ['qmd not on PATH'] }),
      );
      // The cross-encoder never answers: its 8 ms budget runs out at 1 + 8.
      expectObservable(out$.pipe(map(summary))).toBe('---------(o|)', {
        o: {
          ids: ['pool'],
          arms: ['bm25:ok', 'vector:error'],
          degraded: ['engine:unavailable', 'cache:error', 'arm:vector:error', 'rerank:timeout'],
          cacheTier: null,
        },
      });
    });
  });

  it('reports one trace event per stage, in order; a cache hit reports no arm, floor, fusion or superseded stage', () => {
    const stagesOf = (cache: CachePort): string[] => {
      const events: TraceEvent[] = [];
      const ts = scheduler();
      ts.run(({ cold, expectObservable }) => {
        const arms = () =>
          [
            { arm: 'vector', source: cold<ArmHit[]>('-a|', { a: [] }), timeoutMs: 5 },
            { arm: 'bm25', source: cold<ArmHit[]>('-a|', { a: hits([pool, 3]) }), timeoutMs: 5 },
          ] as ArmSpec[];
        expectObservable(recall$(REQUEST, deps({ ts, arms, cache, trace: (e) => events.push(e) })).pipe(map(() => 'o'))).toBe(
          cache.read() ? '(o|)' : '-(o|)',
        );
      });
      return events.map((e) => (e.stage === 'arm' ? `arm ${e.arm}` : e.stage));
    };
    const rank = ['relevance', 'score', 'quarantine', 'confidence', 'ood-gate', 'abstain', 'mmr', 'budget', 'result'];
    expect(stagesOf(fakeCache())).toEqual(['start', 'cache', 'arm vector', 'arm bm25', 'floors', 'fuse', 'superseded', 'rerank', ...rank]);
    const cached: CachedFetch = {
      tier: 'fuzzy',
      arms: [],
      candidates: [{ note: pool, rrf: 1, evidence: 1, ranks: { bm25: 1 } }],
      retired: [],
      ce: null,
      embeddings: null,
      degraded: [],
    };
    expect(stagesOf(fakeCache(cached))).toEqual(['start', 'cache', 'rerank', ...rank]);
  });

  it('tells a sink that only times the stages when each stage ended, under the names of the full events, building no event', () => {
    const run = (timesOnly: boolean): TraceEvent[] => {
      const events: TraceEvent[] = [];
      const sink = Object.assign((e: TraceEvent) => void events.push(e), timesOnly ? { timesOnly: true } : {});
      const ts = scheduler();
      ts.run(({ cold, expectObservable }) => {
        const arms = () =>
          [
            { arm: 'vector', source: cold<ArmHit[]>('-a|', { a: [] }), timeoutMs: 5 },
            { arm: 'bm25', source: cold<ArmHit[]>('-a|', { a: hits([pool, 3]) }), timeoutMs: 5 },
          ] as ArmSpec[];
        expectObservable(recall$(REQUEST, deps({ ts, arms, trace: sink })).pipe(map(() => 'o'))).toBe('-(o|)');
      });
      return events;
    };
    const full = run(false).map((e) => (e.stage === 'arm' ? `arm ${e.arm}` : e.stage));
    const timed = run(true);
    expect(timed.every((e) => e.stage === 'time')).toBe(true);
    expect(timed.map((e) => (e.stage === 'time' ? (e.of === 'arm' ? `arm ${e.arm}` : e.of) : `full event ${e.stage}`))).toEqual(full);
  });

  it('short-circuits nothing and fetches nothing before subscribe', () => {
    let built = 0;
    const ts = scheduler();
    recall$(REQUEST, deps({ ts, arms: () => (built++, [{ arm: 'bm25', source: of([]), timeoutMs: 5 }]) }));
    expect(built).toBe(0);
  });
});
