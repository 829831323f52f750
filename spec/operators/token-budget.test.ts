import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { tokenBudget } from '../../operators/filters.js';
import { keys, note, scheduler, scored, selecting } from './states.js';

const summary = (s: RecallState) => ({ ids: keys(s.selected), drops: s.drops.map((d) => `${d.key}: ${d.reason}`) });

describe('tokenBudget', () => {
  const long = (id: string) => scored(note({ id }, 'word '.repeat(200)), 1);
  const state = selecting([long('a'), long('b'), long('c')]);

  it('always keeps the first note, even over budget, and cuts the rest in order', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(tokenBudget(10), map(summary))).toBe('-x|', {
        x: { ids: ['a'], drops: ['b: over --max-tokens 10', 'c: over --max-tokens 10'] },
      });
    });
  });

  it('keeps notes while the estimate fits', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(tokenBudget(100_000), map(summary))).toBe('-x|', {
        x: { ids: ['a', 'b', 'c'], drops: [] },
      });
    });
  });

  it('is off at 0', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(tokenBudget(0))).toBe('-s|', { s: state });
    });
  });
});
