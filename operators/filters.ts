/**
 * The filter stages of a recall: each keeps some of the candidates and records a Drop (stage,
 * reason) for every one it removes, so `recall trace` and `recall explain` can say why a note is
 * missing. One file, since they are one idea: the same bookkeeping (`dropping`) over a different
 * test. Empty in → empty out, for every one of them.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import type { Drop, ScoredCandidate } from '../core/types.js';
import { estimateTokens, termCoverage } from '../core/terms.js';
import { mmrSelect } from './math/index.js';

/** Replace `state.selected` with the kept candidates and record a Drop for every candidate removed. */
export function dropping(state: RecallState, keep: ScoredCandidate[], stage: string, reason: (c: ScoredCandidate) => string): RecallState {
  if (keep.length === state.selected.length) return state;
  const kept = new Set(keep.map((c) => c.note.key));
  const drops: Drop[] = state.selected.filter((c) => !kept.has(c.note.key)).map((c) => ({ key: c.note.key, stage, reason: reason(c) }));
  return { ...state, selected: keep, drops: [...state.drops, ...drops] };
}

/**
 * Team notes: with the pulled team shard switched off for this call (RECALL_TEAM_NOTES=0), drops the
 * fused candidates that come from it (path under the shard's prefix, `prefix`: TEAM_PREFIX). The
 * shard stays in the index whatever one call says, so a call that does not want it never changes
 * what the next call finds (an index, or a recall server, shared by calls with other settings).
 * Notes of the live team arm are not the shard's and stay.
 */
export function dropTeamNotes(keep: boolean, prefix: string): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (keep || state.candidates.length === 0) return state;
    const inShard = (path: string): boolean => path.startsWith(`${prefix}/`);
    const drops: Drop[] = state.candidates
      .filter((c) => inShard(c.note.path))
      .map((c) => ({ key: c.note.key, stage: 'team notes', reason: 'pulled team note (RECALL_TEAM_NOTES=0)' }));
    if (drops.length === 0) return state;
    return { ...state, candidates: state.candidates.filter((c) => !inShard(c.note.path)), drops: [...state.drops, ...drops] };
  });
}

/**
 * Quarantine: fleet-imported notes marked `quarantine` are dropped unless they are included
 * (--include-quarantined, implied by --format fleet-context).
 */
export function dropQuarantined(include: boolean): OperatorFunction<RecallState, RecallState> {
  return map((state) =>
    include
      ? state
      : dropping(
          state,
          state.selected.filter((c) => !c.note.quarantine),
          'quarantine',
          () => 'quarantined fleet note',
        ),
  );
}

/** The confidence floor (--confidence HIGH|MEDIUM|LOW|ANY). */
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

/** How many of the top notes the OOD gate looks at: the ones an agent would be shown. */
export const OOD_TOP = 5;

/**
 * Out-of-domain gate: if the best of the top 5 notes covers less than `minOverlap` of the query's
 * content terms, the result is emptied and flagged. 0 disables it; a query without content terms
 * never gates.
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

/** MMR: a diversified pick of `limit` notes with the rerank window's vectors; without vectors a plain slice to `limit`. */
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

/**
 * Token budget: caps what a recall injects into the agent's context. Notes are kept in order until
 * the estimate would exceed `maxTokens`; the first is always kept. 0 = off.
 */
export function tokenBudget(maxTokens: number): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (maxTokens <= 0 || state.selected.length === 0) return state;
    const keep: ScoredCandidate[] = [];
    let total = 0;
    for (const c of state.selected) {
      const t = estimateTokens(c.note.chunkText);
      if (keep.length > 0 && total + t > maxTokens) break;
      keep.push(c);
      total += t;
    }
    return dropping(state, keep, 'budget', () => `over --max-tokens ${maxTokens}`);
  });
}
