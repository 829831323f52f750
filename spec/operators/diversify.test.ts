import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { diversify } from '../../operators/filters.js';
import { keys, note, scheduler, scored, selecting } from './states.js';

const summary = (s: RecallState) => ({ ids: keys(s.selected), drops: s.drops.map((d) => `${d.key} ${d.stage}`) });

describe('diversify', () => {
  const a = scored(note({ id: 'a' }), 0.9);
  const twin = scored(note({ id: 'twin' }), 0.89);
  const other = scored(note({ id: 'other' }), 0.7);
  const vectors: RecallState['embeddings'] = {
    query: [1, 0.2],
    docs: new Map([
      ['a', [1, 0]],
      ['twin', [1, 0]],
      ['other', [0, 1]],
    ]),
  };

  it('without vectors takes the first `limit` notes and records the rest as cut by the limit', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: selecting([a, twin, other]) }).pipe(diversify(2, 0.7, true), map(summary))).toBe('-x|', {
        x: { ids: ['a', 'twin'], drops: ['other limit'] },
      });
    });
  });

  it('with vectors prefers a different note over a near-duplicate of one already picked', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const s = { ...selecting([a, twin, other]), embeddings: vectors };
      expectObservable(cold('-s|', { s }).pipe(diversify(2, 0.5, true), map(summary))).toBe('-x|', {
        x: { ids: ['a', 'other'], drops: ['twin mmr'] },
      });
    });
  });

  it('with MMR switched off slices even when vectors exist', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const s = { ...selecting([a, twin, other]), embeddings: vectors };
      expectObservable(cold('-s|', { s }).pipe(diversify(2, 0.5, false), map(summary))).toBe('-x|', {
        x: { ids: ['a', 'twin'], drops: ['other limit'] },
      });
    });
  });
});
