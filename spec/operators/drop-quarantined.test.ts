import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { dropQuarantined } from '../../operators/filters.js';
import { keys, note, scheduler, scored, selecting } from './states.js';

const summary = (s: RecallState) => ({ ids: keys(s.selected), drops: s.drops.map((d) => `${d.key} ${d.stage}: ${d.reason}`) });

describe('dropQuarantined', () => {
  const state = selecting([scored(note({ id: 'ok' }), 0.9), scored(note({ id: 'q', quarantine: true }), 0.8)]);

  it('drops quarantined notes and records why', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(dropQuarantined(false), map(summary))).toBe('-x|', {
        x: { ids: ['ok'], drops: ['q quarantine: quarantined fleet note'] },
      });
    });
  });

  it('keeps them when included (fleet context)', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(dropQuarantined(true))).toBe('-s|', { s: state });
    });
  });
});
