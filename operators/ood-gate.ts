/**
 * Out-of-domain gate stage: a result none of whose top notes covers enough of the query is emptied.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import { dropping } from './drops.js';
import { termCoverage } from '../core/terms.js';

/** How many of the top notes the OOD gate looks at: the ones an agent would be shown. */
export const OOD_TOP = 5;

/**
 * OOD gate: if the best of the top 5 notes covers less than `minOverlap` of the query's content
 * terms, the result is emptied and flagged. 0 disables it; a query without content terms never gates.
 */
export function oodGate(minOverlap: number): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (minOverlap <= 0 || state.selected.length === 0) return state;
    const best = Math.max(...state.selected.slice(0, OOD_TOP).map((c) => termCoverage(state.terms, c.note.chunkText)));
    if (best >= minOverlap) return { ...state, coverage: best };
    const gated = dropping(state, [], 'ood-gate', () => `best coverage ${best.toFixed(2)} < min-overlap ${minOverlap}`);
    return { ...gated, oodGated: true, coverage: best };
  });
}
