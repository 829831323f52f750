/**
 * The record that flows through the stage operators of one recall. Each operator returns a new
 * record (no mutation), adding its output and any drops or degradations it recorded.
 */
import type {
  RelevanceFeatures,
  ArmOutcome,
  Candidate,
  CacheTier,
  Degradation,
  Drop,
  Embeddings,
  RelevanceSource,
  ScoredCandidate,
} from './types.js';
import type { NoteTerms, QueryTerm } from './stems.js';

/** A query term with the weights the relevance estimate used. */
export interface WeighedTerm extends QueryTerm {
  /** Weight in everyday English (0..1; 1 for a name). */
  info: number;
  /** Live notes of the KB containing it. */
  df: number;
  /** It pins a topic down: a name, or a word rare in everyday English that is not an everyday coding word. */
  specific: boolean;
  /** A word every coding conversation uses (its information is capped). */
  everyday: boolean;
  /** Prefixes of the stem that are everyday words, which do not stand for it (weigh-terms.ts: everydayPrefixes). */
  notVia?: ReadonlySet<string>;
}

export interface RelevanceEstimate {
  /** Absolute relevance (0..1): what the floors compare and what results show. */
  p: number;
  /**
   * What the ranking multiplies: p, except that a lexical estimate counts the title's label words here
   * (a speaker's name says which turns of this conversation a question is nearer; see
   * operators/math/relevance.ts, titleCoverages). Absent = p.
   */
  ranking?: number;
  source: RelevanceSource;
  /**
   * Keys of the candidates this note supersedes (operators/lift-successors.ts): it is at least as
   * relevant as each and the score ranks it above them. Absent = none.
   */
  succeeds?: readonly string[];
  /**
   * Share of the query's phrases (adjacent content-word pairs, label words left out) that the note's
   * title repeats, 0..1 (operators/math/evidence.ts, titlePhraseShare); absent = 0. The ranking
   * multiplies 1 + TITLE_PHRASE_WEIGHT × it when no cross-encoder scored the note (apply-boosts.ts).
   */
  titlePhrases?: number;
  /** The lexical features (also computed when a cross-encoder decided, for explain). */
  features: RelevanceFeatures | null;
}

export interface RecallState {
  query: string;
  /** Content terms of the query (OOD gate, floors, fuzzy cache). */
  terms: string[];
  /** The query's terms (date phrase removed) as the relevance estimate weighed them; [] before it ran. */
  weighed: WeighedTerm[];
  /** Absolute relevance by note key. */
  relevance: Map<string, RelevanceEstimate>;
  /**
   * The stems of each note the relevance estimate read (its window), by note key, computed once per
   * recall and read again by the abstention reason and the trace; empty before the estimate ran.
   */
  noteTerms: ReadonlyMap<string, NoteTerms>;
  arms: ArmOutcome[];
  /** Fused candidates in RRF order (after floors and the superseded filter). */
  candidates: Candidate[];
  /**
   * Candidates the superseded filter took out (a replaced or archived note): never a result, but the
   * relevance estimate reads them, so a replacement answers what its predecessor was about.
   */
  retired: Candidate[];
  /** Cross-encoder logits by note key, or null when no cross-encoder ran. */
  ce: Map<string, number> | null;
  embeddings: Embeddings | null;
  /** All candidates scored and sorted, before the filters. */
  scored: ScoredCandidate[];
  /** What survives the filters, gate, MMR and budget: the result. */
  selected: ScoredCandidate[];
  /** Candidates below the relevance floor, kept for display as weak matches. */
  weak: ScoredCandidate[];
  oodGated: boolean;
  coverage: number | null;
  /** Reason nothing cleared the relevance floor, else null. */
  abstained: string | null;
  cacheTier: CacheTier;
  degraded: Degradation[];
  drops: Drop[];
}

export function initialState(query: string, terms: string[]): RecallState {
  return {
    query,
    terms,
    weighed: [],
    relevance: new Map(),
    noteTerms: new Map(),
    arms: [],
    candidates: [],
    retired: [],
    ce: null,
    embeddings: null,
    scored: [],
    selected: [],
    weak: [],
    oodGated: false,
    coverage: null,
    abstained: null,
    cacheTier: null,
    degraded: [],
    drops: [],
  };
}
