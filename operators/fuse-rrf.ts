/**
 * Reciprocal rank fusion of the arms' hit lists (k = 60), matched by note key.
 *
 * Arms that did not succeed contribute nothing and are recorded as degradations (a disabled arm is
 * a choice, not a degradation). No hits anywhere → no candidates.
 */
import { map, type OperatorFunction } from 'rxjs';
import { reciprocalRankFusion, RRF_K } from '../core/rrf.js';
import type { RecallState } from '../core/state.js';
import type { ArmOutcome, Candidate, Degradation } from '../core/types.js';

export function armDegradations(arms: readonly ArmOutcome[]): Degradation[] {
  return arms
    .filter((a) => a.status === 'timeout' || a.status === 'error' || a.status === 'unavailable')
    .map((a) => ({
      stage: `arm:${a.arm}`,
      reason: a.status === 'timeout' ? 'timeout' : a.status === 'unavailable' ? 'unavailable' : 'error',
      message: a.message ?? a.status,
    }));
}

/**
 * Each arm's hits as 0..1 evidence: native score / the arm's best score, or, when the arm's scores
 * are not positive (no meaningful native score), the RRF weight of the rank relative to rank 1.
 */
export function armEvidence(outcome: ArmOutcome, k = RRF_K): Map<string, number> {
  const out = new Map<string, number>();
  const best = outcome.hits.reduce((m, h) => Math.max(m, h.score), 0);
  outcome.hits.forEach((h, i) => {
    if (out.has(h.note.key)) return;
    const e = best > 0 && Number.isFinite(h.score) ? Math.max(0, h.score) / best : (k + 1) / (k + i + 1);
    out.set(h.note.key, e);
  });
  return out;
}

export function fuseArmHits(arms: readonly ArmOutcome[], k = RRF_K): Candidate[] {
  const fused = reciprocalRankFusion(
    arms.map((a) => ({ arm: a.arm, items: a.hits })),
    (hit) => hit.note.key,
    k,
  );
  const evidence = arms.map((a) => armEvidence(a, k));
  return fused.map((f) => ({
    note: f.item.note,
    rrf: f.score,
    evidence: evidence.reduce((sum, e) => sum + (e.get(f.key) ?? 0), 0),
    ranks: f.ranks,
  }));
}

export function fuseRrf(k = RRF_K): OperatorFunction<RecallState, RecallState> {
  return map((state) => ({
    ...state,
    candidates: fuseArmHits(state.arms, k),
    degraded: [...state.degraded, ...armDegradations(state.arms)],
  }));
}
