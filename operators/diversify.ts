/**
 * MMR stage: diversified pick of `limit` notes, or a plain slice when there are no vectors.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import { dropping } from './drops.js';
import { mmrSelect } from './math/index.js';

/** MMR over the selected notes with the rerank window's vectors; without vectors a plain slice to `limit`. */
export function diversify(limit: number, lambda: number, enabled: boolean): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    const vectors = enabled && state.embeddings ? state.embeddings.docs : null;
    const keep = mmrSelect(
      state.selected.map((c) => ({ ...c, key: c.note.key })),
      limit,
      vectors,
      state.embeddings?.query ?? null,
      lambda,
    );
    return dropping(state, keep, vectors ? 'mmr' : 'limit', () => (vectors ? 'diversified away' : `beyond --limit ${limit}`));
  });
}
