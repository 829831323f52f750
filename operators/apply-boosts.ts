/**
 * Scoring:
 *
 *   score = base × relevance × title × confidence × recency × tags × proof × project × domain × authority × speculative
 *
 * - base = sigmoid(cross-encoder logit) for the rescored window; when no cross-encoder score
 *   exists it is the candidate's fused evidence (each arm's native score over that arm's best,
 *   summed over arms) divided by the window's best, so the boosts stay bounded re-rankers instead
 *   of becoming the whole order (the reference uses a constant there). Normalising the RRF score
 *   instead was measured to let the boosts override BM25 (rank 1 at 17.0 vs rank 2 at 3.2 → RRF 1.0 vs 0.98);
 * - candidates past the window (RERANK_WINDOW with cross-encoder scores, else LEXICAL_WINDOW) get
 *   UNSCORED_RELEVANCE (1e-6), below every scored one;
 * - each boost is 1 + α·(norm − 0.5), α from RECALL_*_ALPHA (0..2).
 * - relevance is the candidate's absolute relevance from the relevance stage (1 when that stage did
 *   not run): how much of the query's specific information the note carries, which the base (an
 *   arm's score over its best) does not say. Measured on the LoCoMo dev conversations: evidence
 *   recall@10 0.637 → 0.652 with it, golden and abstention sets unchanged. The factor is the
 *   estimate's ranking form (RelevanceEstimate.ranking), which also counts a title's label words.
 * - title is 1 + TITLE_PHRASE_WEIGHT × the share of the query's phrases the note's title repeats
 *   (RelevanceEstimate.titlePhrases), when no cross-encoder scored the note. The relevance factor
 *   cannot rank notes that all contain the query's words (its sigmoid saturates near 1), so for
 *   "transaction pooling" the note whose graph matched best came first, not the one titled
 *   "pgbouncer transaction pooling breaks …".
 * Output is sorted by score, stable (ties keep RRF order), except that a note that supersedes another
 * candidate scores at least as high and sorts above it (lift-successors.ts). Empty in → empty out.
 *
 * A boost that throws (a malformed note field, a failing project lookup) is neutral (factor 1) for
 * every candidate and recorded as a degradation `boost:<name>`; the other boosts and the recall go on.
 */
import { catchError, concatMap, defer, forkJoin, map, of, type Observable, type OperatorFunction } from 'rxjs';
import {
  BOOST_NAMES,
  BOOST_NORMS,
  boostFactors,
  boostProduct,
  NEUTRAL_NORM,
  sigmoid,
  UNSCORED_RELEVANCE,
  type BoostContext,
  type BoostNorm,
  type BoostNorms,
} from './math/index.js';
import { scoringWindow } from './rerank-top.js';
import { rankSuccessors } from './lift-successors.js';
import { errorMessage } from '../core/errors.js';
import type { BoostName } from '../core/types.js';
import type { RecallState, RelevanceEstimate } from '../core/state.js';
import type { Candidate, Degradation, ScoredCandidate } from '../core/types.js';

/**
 * What a title that repeats every phrase of the query multiplies the score by, less one: 1 doubles
 * it, as much as a second retrieval arm agreeing fully would add to the fused evidence.
 */
export const TITLE_PHRASE_WEIGHT = 1;

/** Scores candidates from their boost norms (one record per candidate, in candidate order) and sorts them. */
export function scoreCandidates(
  candidates: readonly Candidate[],
  ce: ReadonlyMap<string, number> | null,
  alphas: Readonly<Record<BoostName, number>>,
  norms: readonly BoostNorms[],
  relevance: ReadonlyMap<string, RelevanceEstimate> = new Map(),
): ScoredCandidate[] {
  const window = scoringWindow(ce);
  const windowBest = candidates.slice(0, window).reduce((m, c) => Math.max(m, c.evidence), 0);
  const scored = candidates.map((c, i): ScoredCandidate => {
    const logit = ce?.get(c.note.key);
    const inWindow = i < window;
    let base = UNSCORED_RELEVANCE;
    if (ce) {
      if (inWindow && logit !== undefined) base = sigmoid(logit);
    } else if (inWindow && windowBest > 0) {
      base = c.evidence / windowBest;
    }
    const boosts = boostFactors(norms[i]!, alphas);
    const est = relevance.get(c.note.key);
    // The cross-encoder's probability is already the base (also for a note an entity link lifted: the
    // lift is for the floor, and must not lower the score); any other estimate adds what the base lacks.
    const relevanceFactor = logit === undefined && est ? (est.ranking ?? est.p) : 1;
    const titleFactor = logit === undefined ? 1 + TITLE_PHRASE_WEIGHT * (est?.titlePhrases ?? 0) : 1;
    return {
      ...c,
      ce: logit ?? null,
      base,
      relevance: est?.p ?? (logit !== undefined ? sigmoid(logit) : 0),
      relevanceSource: est?.source ?? (logit !== undefined ? 'cross-encoder' : 'lexical'),
      ...(est?.features ? { summaryShare: est.features.summaryShare } : {}),
      relevanceFactor,
      titleFactor,
      boosts,
      score: base * boostProduct(boosts) * relevanceFactor * titleFactor,
    };
  });
  // A note that supersedes another candidate ranks above it (lift-successors.ts).
  return rankSuccessors(scored, relevance);
}

export interface ApplyBoostsOptions {
  alphas: Readonly<Record<BoostName, number>>;
  /** Called once per recall, when there is something to score (project detection may spawn git). */
  context: (candidates: readonly Candidate[]) => BoostContext;
  /** How each boost reads a note (default BOOST_NORMS). */
  norms?: Readonly<Record<BoostName, BoostNorm>>;
}

/** One boost's norms for every candidate, or neutral norms and a degradation when it throws. */
interface BoostColumn {
  norms: number[];
  degraded: Degradation | null;
}

function boostColumn(name: BoostName, norm: BoostNorm, candidates: readonly Candidate[], ctx: BoostContext): Observable<BoostColumn> {
  return defer(() => of<BoostColumn>({ norms: candidates.map((c) => norm(c.note, ctx)), degraded: null })).pipe(
    catchError((err: unknown) => of(neutralColumn(candidates, `boost:${name}`, errorMessage(err)))),
  );
}

function neutralColumn(candidates: readonly Candidate[], stage: string, message: string): BoostColumn {
  return { norms: candidates.map(() => NEUTRAL_NORM), degraded: { stage, reason: 'error', message } };
}

/** Every boost's column; when the shared context cannot be built, every boost is neutral. */
function boostColumns(candidates: readonly Candidate[], opts: ApplyBoostsOptions): Observable<Record<BoostName, BoostColumn>> {
  const norms = opts.norms ?? BOOST_NORMS;
  return defer(() => of(opts.context(candidates))).pipe(
    concatMap((ctx) =>
      forkJoin(
        Object.fromEntries(BOOST_NAMES.map((n) => [n, boostColumn(n, norms[n], candidates, ctx)])) as Record<
          BoostName,
          Observable<BoostColumn>
        >,
      ),
    ),
    catchError((err: unknown) => {
      const neutral = neutralColumn(candidates, 'boosts', `boost context failed: ${errorMessage(err)}`);
      const quiet = { ...neutral, degraded: null };
      return of(Object.fromEntries(BOOST_NAMES.map((n, i) => [n, i === 0 ? neutral : quiet])) as Record<BoostName, BoostColumn>);
    }),
  );
}

/** Per-candidate norm records from the per-boost columns, in the fixed boost order. */
function normsByCandidate(columns: Record<BoostName, BoostColumn>, count: number): BoostNorms[] {
  return Array.from({ length: count }, (_, i) => {
    const out = {} as BoostNorms;
    for (const n of BOOST_NAMES) out[n] = columns[n].norms[i]!;
    return out;
  });
}

export function applyBoosts(opts: ApplyBoostsOptions): OperatorFunction<RecallState, RecallState> {
  return concatMap((state) => {
    if (state.candidates.length === 0) return of({ ...state, scored: [], selected: [] });
    return boostColumns(state.candidates, opts).pipe(
      map((columns): RecallState => {
        const norms = normsByCandidate(columns, state.candidates.length);
        const scored = scoreCandidates(state.candidates, state.ce, opts.alphas, norms, state.relevance);
        const degraded = BOOST_NAMES.flatMap((n) => (columns[n].degraded ? [columns[n].degraded] : []));
        return { ...state, scored, selected: scored, degraded: degraded.length ? [...state.degraded, ...degraded] : state.degraded };
      }),
    );
  });
}
