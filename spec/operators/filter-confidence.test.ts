import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { filterConfidence } from '../../operators/filters.js';
import { keys, note, scheduler, scored, selecting } from './states.js';

const summary = (s: RecallState) => ({ ids: keys(s.selected), drops: s.drops.map((d) => `${d.key}: ${d.reason}`) });

describe('filterConfidence', () => {
  const state = selecting([
    scored(note({ id: 'h', confidence: 'high' }), 0.9),
    scored(note({ id: 'm', confidence: 'medium' }), 0.8),
    scored(note({ id: 'l', confidence: 'low' }), 0.7),
  ]);

  it('keeps the tiers at or above the floor, in order, and records the rest', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(filterConfidence('MEDIUM'), map(summary))).toBe('-x|', {
        x: { ids: ['h', 'm'], drops: ['l: confidence LOW below MEDIUM'] },
      });
    });
  });

  it('ANY keeps everything', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(filterConfidence('ANY'))).toBe('-s|', { s: state });
    });
  });
});
