/**
 * Per-arm query-term-coverage floors, applied to each arm's hits before fusion.
 *
 * A hit whose note covers less than the arm's floor of the query's content terms is dropped (and
 * the drop recorded). Floors are 0..1 per arm, default 0 = off (RECALL_ARM_<ARM>_MIN_SCORE).
 * Arms without hits, or a query without content terms, pass unchanged.
 */
import { map, type OperatorFunction } from 'rxjs';
import { termCoverage } from '../core/terms.js';
import type { RecallState } from '../core/state.js';
import type { ArmName, Drop } from '../core/types.js';

export function applyArmFloors(floors: Readonly<Record<ArmName, number>>): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (state.terms.length === 0) return state;
    const drops: Drop[] = [];
    const arms = state.arms.map((outcome) => {
      const floor = floors[outcome.arm] ?? 0;
      if (floor <= 0 || outcome.hits.length === 0) return outcome;
      const hits = outcome.hits.filter((h) => {
        const cov = termCoverage(state.terms, h.note.chunkText);
        if (cov >= floor) return true;
        drops.push({ key: h.note.key, stage: 'arm-floor', reason: `${outcome.arm} coverage ${cov.toFixed(2)} < floor ${floor}` });
        return false;
      });
      return { ...outcome, hits };
    });
    return drops.length ? { ...state, arms, drops: [...state.drops, ...drops] } : state;
  });
}
