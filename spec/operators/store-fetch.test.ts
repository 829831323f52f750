import { describe, it, expect } from '@jest/globals';
import { map } from 'rxjs';
import type { CachePort, FetchToStore } from '../../core/ports.js';
import type { RecallState } from '../../core/state.js';
import { storeFetch } from '../../operators/store-fetch.js';
import { arm, fused, keys, note, scheduler } from './states.js';

function recordingCache(fail?: Error): CachePort & { stored: FetchToStore[] } {
  const stored: FetchToStore[] = [];
  return {
    stored,
    read: () => null,
    write: (f) => {
      if (fail) throw fail;
      stored.push(f);
    },
  };
}

describe('storeFetch', () => {
  const n = note({ id: 'a' });
  const complete: RecallState = { ...fused([n]), arms: [arm('bm25', [n]), arm('graph', [], undefined, 'disabled')] };

  it('stores a complete fetch and passes the state through unchanged', () => {
    const cache = recordingCache();
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: complete }).pipe(storeFetch(cache))).toBe('-s|', { s: complete });
    });
    expect(cache.stored.map((f) => keys(f.candidates))).toEqual([['a']]);
  });

  it('does not store a fetch that lost an arm to a timeout or an error (the next call retries)', () => {
    const cache = recordingCache();
    scheduler().run(({ cold, expectObservable }) => {
      const timedOut = { ...complete, arms: [...complete.arms, arm('vector', [], undefined, 'timeout')] };
      const failed = { ...complete, arms: [...complete.arms, arm('vector', [], undefined, 'error')] };
      expectObservable(cold('-t-f|', { t: timedOut, f: failed }).pipe(storeFetch(cache))).toBe('-t-f|', { t: timedOut, f: failed });
    });
    expect(cache.stored).toEqual([]);
  });

  it('records a failed write as a cache degradation instead of failing the recall', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const out$ = cold('-s|', { s: complete }).pipe(
        storeFetch(recordingCache(new Error('disk full'))),
        map((s) => ({ ids: keys(s.candidates), degraded: s.degraded })),
      );
      expectObservable(out$).toBe('-x|', {
        x: { ids: ['a'], degraded: [{ stage: 'cache', reason: 'error', message: 'cache write failed: disk full' }] },
      });
    });
  });
});
