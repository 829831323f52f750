/**
 * Shared bookkeeping for the filter stages: replace `state.selected` with the kept candidates and
 * record a Drop (stage, reason) for every candidate removed.
 */
import type { RecallState } from '../core/state.js';
import type { Drop, ScoredCandidate } from '../core/types.js';

export function dropping(state: RecallState, keep: ScoredCandidate[], stage: string, reason: (c: ScoredCandidate) => string): RecallState {
  if (keep.length === state.selected.length) return state;
  const kept = new Set(keep.map((c) => c.note.key));
  const drops: Drop[] = state.selected.filter((c) => !kept.has(c.note.key)).map((c) => ({ key: c.note.key, stage, reason: reason(c) }));
  return { ...state, selected: keep, drops: [...state.drops, ...drops] };
}
