/**
 * Scoring (seed §6 with one deliberate departure):
 *
 *   score = base × relevance × confidence × recency × tags × proof × project × domain × authority × speculative
 *
 * - base = sigmoid(cross-encoder logit) for the rescored window; when no cross-encoder score
 *   exists it is the candidate's fused evidence (each arm's native score over that arm's best,
 *   summed over arms) divided by the window's best, so the boosts stay bounded re-rankers instead
 *   of becoming the whole order (the seed uses a constant there). Normalising the RRF score instead
 *   was measured to let the boosts override BM25 (rank 1 at 17.0 vs rank 2 at 3.2 → RRF 1.0 vs 0.98);
 * - candidates past the RERANK_WINDOW get UNSCORED_RELEVANCE (1e-6), below every scored one;
 * - each boost is 1 + α·(norm − 0.5), α from RECALL_*_ALPHA (0..2).
 * - relevance is the candidate's absolute relevance from the relevance stage (1 when that stage did
 *   not run): how much of the query's specific information the note carries, which the base (an
 *   arm's score over its best) does not say. Measured on the LoCoMo dev conversations: evidence
 *   recall@10 0.637 → 0.652 with it, golden and abstention sets unchanged.
 * Output is sorted by score, stable (ties keep RRF order). Empty in → empty out.
 */
import { map, type OperatorFunction } from 'rxjs';
import { boostFactors, boostNorms, boostProduct, sigmoid, UNSCORED_RELEVANCE, type BoostContext } from './math/boosts.js';
import { RERANK_WINDOW } from './rerank-top.js';
import type { BoostName } from '../core/types.js';
import type { RecallState, RelevanceEstimate } from '../core/state.js';
import type { Candidate, ScoredCandidate } from '../core/types.js';

export function scoreCandidates(
  candidates: readonly Candidate[],
  ce: ReadonlyMap<string, number> | null,
  alphas: Readonly<Record<BoostName, number>>,
  ctx: BoostContext,
  relevance: ReadonlyMap<string, RelevanceEstimate> = new Map(),
): ScoredCandidate[] {
  const windowBest = candidates.slice(0, RERANK_WINDOW).reduce((m, c) => Math.max(m, c.evidence), 0);
  const scored = candidates.map((c, i): ScoredCandidate => {
    const logit = ce?.get(c.note.key);
    const inWindow = i < RERANK_WINDOW;
    let base = UNSCORED_RELEVANCE;
    if (ce) {
      if (inWindow && logit !== undefined) base = sigmoid(logit);
    } else if (inWindow && windowBest > 0) {
      base = c.evidence / windowBest;
    }
    const boosts = boostFactors(boostNorms(c.note, ctx), alphas);
    const est = relevance.get(c.note.key);
    return {
      ...c,
      ce: logit ?? null,
      base,
      relevance: est?.p ?? (logit !== undefined ? sigmoid(logit) : 0),
      relevanceSource: est?.source ?? (logit !== undefined ? 'cross-encoder' : 'lexical'),
      boosts,
      // The cross-encoder's probability is already the base; any other estimate adds what the base lacks.
      score: base * boostProduct(boosts) * (est && est.source !== 'cross-encoder' ? est.p : 1),
    };
  });
  return scored.sort((a, b) => b.score - a.score);
}

export interface ApplyBoostsOptions {
  alphas: Readonly<Record<BoostName, number>>;
  /** Called once per recall, when there is something to score (project detection may spawn git). */
  context: (candidates: readonly Candidate[]) => BoostContext;
}

export function applyBoosts(opts: ApplyBoostsOptions): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (state.candidates.length === 0) return { ...state, scored: [], selected: [] };
    const scored = scoreCandidates(state.candidates, state.ce, opts.alphas, opts.context(state.candidates), state.relevance);
    return { ...state, scored, selected: scored };
  });
}
