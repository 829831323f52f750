/**
 * Confidence stage (--confidence HIGH|MEDIUM|LOW|ANY). Empty in → empty out.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import { dropping } from './drops.js';

export type ConfidenceFloor = 'HIGH' | 'MEDIUM' | 'LOW' | 'ANY';
const TIER_RANK: Record<string, number> = { HIGH: 3, MEDIUM: 2, LOW: 1 };

/** Keep notes whose tier ranks at or above the floor; ANY keeps all. Unknown tiers rank 0 (dropped by any floor). */
export function filterConfidence(floor: ConfidenceFloor): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (floor === 'ANY') return state;
    const min = TIER_RANK[floor]!;
    return dropping(
      state,
      state.selected.filter((c) => (TIER_RANK[c.note.confidence] ?? 0) >= min),
      'confidence',
      (c) => `confidence ${c.note.confidence} below ${floor}`,
    );
  });
}
