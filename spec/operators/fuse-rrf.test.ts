import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import { initialState, type RecallState } from '../../core/state.js';
import { fuseRrf } from '../../operators/fuse-rrf.js';
import { arm, keys, note, scheduler } from './states.js';

describe('fuseRrf', () => {
  const a = note({ id: 'a' });
  const b = note({ id: 'b' });
  const c = note({ id: 'c' });

  it('orders candidates by reciprocal rank fusion: a note two arms agree on comes first', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const state: RecallState = { ...initialState('q', []), arms: [arm('bm25', [a, b], [4, 2]), arm('vector', [b, c], [0.9, 0.3])] };
      const out$ = cold('-s|', { s: state }).pipe(
        fuseRrf(),
        map((s) => ({
          ids: keys(s.candidates),
          ranks: s.candidates.map((x) => x.ranks),
          evidence: s.candidates.map((x) => Number(x.evidence.toFixed(3))),
        })),
      );
      expectObservable(out$).toBe('-x|', {
        x: {
          ids: ['b', 'a', 'c'],
          ranks: [{ bm25: 2, vector: 1 }, { bm25: 1 }, { vector: 2 }],
          // Evidence: each arm's score over its best, summed over arms.
          evidence: [1.5, 1, 0.333],
        },
      });
    });
  });

  it('records failed arms as degradations but not a disabled one, and yields no candidates without hits', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const arms = [
        { ...arm('vector', [], undefined, 'timeout'), message: 'no answer within 5 ms' },
        { ...arm('bm25', [], undefined, 'error'), message: 'fts broke' },
        arm('graph', [], undefined, 'disabled'),
        { ...arm('temporal', [], undefined, 'unavailable'), message: 'no index' },
      ];
      const out$ = cold('-s|', { s: { ...initialState('q', []), arms } }).pipe(fuseRrf());
      expectObservable(out$.pipe(map((s) => ({ n: s.candidates.length, degraded: s.degraded })))).toBe('-x|', {
        x: {
          n: 0,
          degraded: [
            { stage: 'arm:vector', reason: 'timeout', message: 'no answer within 5 ms' },
            { stage: 'arm:bm25', reason: 'error', message: 'fts broke' },
            { stage: 'arm:temporal', reason: 'unavailable', message: 'no index' },
          ],
        },
      });
    });
  });
});
