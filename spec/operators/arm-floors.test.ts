import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import { initialState, type RecallState } from '../../core/state.js';
import { applyArmFloors } from '../../operators/arm-floors.js';
import { arm, note, scheduler } from './states.js';

const FLOORS = { vector: 0, bm25: 0.5, graph: 0, temporal: 0, team: 0 };
const summary = (s: RecallState) => ({
  arms: s.arms.map((a) => [a.arm, a.hits.map((h) => h.note.key)]),
  drops: s.drops.map((d) => [d.key, d.stage]),
});

describe('applyArmFloors', () => {
  const full = note({ id: 'full' }, 'postgres pool exhausted under load');
  const half = note({ id: 'half' }, 'postgres tuning notes');
  const none = note({ id: 'none' }, 'unrelated kubernetes text');

  it('drops the hits of an arm that cover less of the query than its floor, and records each drop', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const state: RecallState = {
        ...initialState('postgres pool exhausted', ['postgres', 'pool', 'exhausted']),
        arms: [arm('bm25', [full, half, none]), arm('vector', [none])],
      };
      expectObservable(cold('-s|', { s: state }).pipe(applyArmFloors(FLOORS), map(summary))).toBe('-x|', {
        x: {
          // bm25's floor 0.5: "half" covers 1 of 3 terms; the vector arm has no floor and keeps "none".
          arms: [
            ['bm25', ['full']],
            ['vector', ['none']],
          ],
          drops: [
            ['half', 'arm-floor'],
            ['none', 'arm-floor'],
          ],
        },
      });
    });
  });

  it('passes the state through unchanged when the query has no content terms', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const state: RecallState = { ...initialState('the', []), arms: [arm('bm25', [none])] };
      expectObservable(cold('-s|', { s: state }).pipe(applyArmFloors(FLOORS))).toBe('-s|', { s: state });
    });
  });
});
