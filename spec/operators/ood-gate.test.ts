import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { oodGate } from '../../operators/filters.js';
import { keys, note, scheduler, scored, selecting } from './states.js';

const summary = (s: RecallState) => ({ ids: keys(s.selected), gated: s.oodGated, coverage: s.coverage, drops: s.drops.map((d) => d.key) });
const TERMS = ['postgres', 'deadlock', 'istio', 'sidecar'];

describe('oodGate', () => {
  const state = selecting(
    [scored(note({ id: 'a' }, 'postgres deadlock ordering'), 0.9), scored(note({ id: 'b' }, 'postgres vacuum'), 0.5)],
    'q',
    TERMS,
  );

  it('empties the result and flags it when the best top note covers less than min-overlap of the query', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(oodGate(0.75), map(summary))).toBe('-x|', {
        x: { ids: [], gated: true, coverage: 0.5, drops: ['a', 'b'] },
      });
    });
  });

  it('passes the result and records the coverage when the best note covers enough', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(oodGate(0.5), map(summary))).toBe('-x|', {
        x: { ids: ['a', 'b'], gated: false, coverage: 0.5, drops: [] },
      });
    });
  });

  it('is off at 0', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(oodGate(0))).toBe('-s|', { s: state });
    });
  });
});
