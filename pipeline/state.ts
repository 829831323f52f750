/**
 * The record that flows through the stage operators of one recall. Each operator returns a new
 * record (no mutation), adding its output and any drops or degradations it recorded.
 */
import type { ArmOutcome, Candidate, CacheTier, Degradation, Drop, Embeddings, ScoredCandidate } from './types.js';

export interface RecallState {
  query: string;
  /** Content terms of the query (OOD gate, floors, fuzzy cache). */
  terms: string[];
  arms: ArmOutcome[];
  /** Fused candidates in RRF order (after floors and the superseded filter). */
  candidates: Candidate[];
  /** Cross-encoder logits by note key, or null when no cross-encoder ran. */
  ce: Map<string, number> | null;
  embeddings: Embeddings | null;
  /** All candidates scored and sorted, before the filters. */
  scored: ScoredCandidate[];
  /** What survives the filters, gate, MMR and budget: the result. */
  selected: ScoredCandidate[];
  oodGated: boolean;
  coverage: number | null;
  cacheTier: CacheTier;
  degraded: Degradation[];
  drops: Drop[];
}

export function initialState(query: string, terms: string[]): RecallState {
  return {
    query,
    terms,
    arms: [],
    candidates: [],
    ce: null,
    embeddings: null,
    scored: [],
    selected: [],
    oodGated: false,
    coverage: null,
    cacheTier: null,
    degraded: [],
    drops: [],
  };
}
