/**
 * Data that flows between the stages of a recall.
 */
import type { Note } from './note/index.js';
import type { TemporalConstraint } from './temporal-constraint.js';

/** The retrieval arms. `team` is the live team-store arm; it runs only when enabled and a store is configured. */
export type ArmName = 'vector' | 'bm25' | 'graph' | 'temporal' | 'team';
export const ARM_NAMES: readonly ArmName[] = ['vector', 'bm25', 'graph', 'temporal', 'team'];

/** The bounded score boosts, each a factor applied to a candidate's base score. */
export type BoostName = 'confidence' | 'recency' | 'tags' | 'proof' | 'project' | 'domain' | 'authority' | 'speculative';

/** One candidate from one arm, with the arm's native score (higher is better). */
export interface ArmHit {
  note: Note;
  score: number;
  /** Lexical arm: the part of `score` lent by notes archived at the same moment (episode context). */
  context?: number;
}

export type ArmStatus = 'ok' | 'unavailable' | 'disabled' | 'timeout' | 'error';

export interface ArmOutcome {
  arm: ArmName;
  status: ArmStatus;
  hits: ArmHit[];
  /** Wall time of the arm in ms (scheduler time). */
  ms: number;
  /** Why the arm gave nothing, when it did not succeed. */
  message?: string;
}

/** A swallowed failure, recorded as data so traces, JSON output and the recall log can show it. */
export interface Degradation {
  stage: string;
  reason: 'timeout' | 'error' | 'unavailable';
  message: string;
}

export interface Candidate {
  note: Note;
  /** Fused RRF score (decides the rerank window and ties). */
  rrf: number;
  /**
   * Score evidence: the sum over arms of the note's native score divided by that arm's best
   * (rank-based when an arm's scores are not positive). The relevance component when no
   * cross-encoder score exists.
   */
  evidence: number;
  /** 1-based rank of the note in each arm that returned it. */
  ranks: Partial<Record<ArmName, number>>;
}

/**
 * Where a candidate's absolute relevance comes from ('successor': lifted to the note it supersedes;
 * 'asked-step': named for a git step the query asks for, operators/lift-asked-steps.ts; 'asked-meaning':
 * the memory on how to explain to the user, for a query asking what something means, lift-explained.ts;
 * 'forbidden': a rule that forbids what the query names, lift-forbidden.ts).
 */
export type RelevanceSource =
  'cross-encoder' | 'lexical' | 'date-window' | 'linked' | 'successor' | 'asked-step' | 'asked-meaning' | 'forbidden';

export interface ScoredCandidate extends Candidate {
  /** Raw cross-encoder logit when the note was rescored, else null. */
  ce: number | null;
  /**
   * The ranking component the boosts multiply: sigmoid(ce), else evidence normalised to the
   * window's best, else 1e-6 past the window.
   */
  base: number;
  /**
   * Absolute relevance, 0..1: how likely the note is about the query, whatever else was retrieved
   * (operators/math/relevance.ts). The abstention floor applies to it.
   */
  relevance: number;
  relevanceSource: RelevanceSource;
  /**
   * Share of the note's summary (title, key insight, tags) the query matched, from the lexical
   * estimate (RelevanceFeatures.summaryShare); absent when no lexical features were computed. Says
   * whether what the note is about holds the query's words, or only its body mentions them.
   */
  summaryShare?: number;
  /**
   * What the score multiplies for relevance: 1 when the cross-encoder's probability is the base,
   * else the estimate's ranking form (RelevanceEstimate.ranking, which counts a title's label words).
   */
  relevanceFactor: number;
  /** What the score multiplies for a title repeating the query's phrases (1 with a cross-encoder; see apply-boosts.ts). */
  titleFactor: number;
  boosts: Record<BoostName, number>;
  score: number;
}

export interface Embeddings {
  query: number[];
  docs: Map<string, number[]>;
}

/** A dropped candidate and the stage/reason (for traces and explain). */
export interface Drop {
  key: string;
  stage: string;
  reason: string;
}

export type CacheTier = 'exact' | 'fuzzy' | null;

export interface RecallOutcome {
  query: string;
  mode: string;
  results: ScoredCandidate[];
  /** Every scored candidate before the filters (ranked), for JSON consumers and staged recall. */
  ranked: ScoredCandidate[];
  oodGated: boolean;
  /** Best query-term coverage among the top 5 when the gate ran. */
  coverage: number | null;
  temporal: TemporalConstraint | null;
  cacheTier: CacheTier;
  arms: ArmOutcome[];
  degraded: Degradation[];
  drops: Drop[];
  persona: PersonaHit | null;
  /** Relevance floor applied (0 = none). */
  floor: number;
  /** Why nothing cleared the floor ("abstained"), or null when something did or no floor applies. */
  abstained: string | null;
  /** Candidates below the floor kept for display as weak matches (the CLI), best first; else []. */
  weak: ScoredCandidate[];
  /** Set when recall could not run at all (no KB, empty KB): a one-line reason. */
  notice: string | null;
  ms: number;
}

export interface PersonaHit {
  project_id: string;
  field_name: string;
  value: string;
  confidence: number;
}

/** The lexical evidence a relevance estimate is computed from (operators/math/relevance.ts), each 0..1. */
export interface RelevanceFeatures {
  kbCoverage: number;
  infoCoverage: number;
  /** Share of the note's title words the query uses, the KB's label words left out (see relevance.ts). */
  titleCoverage: number;
  /** The same with label words counted: what the ranking uses. */
  titleWithLabels: number;
  noteMissing: number;
  maxCovered: number;
  coveredInfo: number;
  /** 1 when the note contains a specific query word, or a specific combination of them (MID_INFO, PAIR_INFO), else 0. */
  specificCovered: number;
  /** Absolute evidence, phrase and standout features (operators/math/evidence.ts). */
  evidence: number;
  summaryShare: number;
  phrases: number;
  standout: number;
}
