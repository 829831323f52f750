/**
 * The model boundary: a cross-encoder that scores (query, text) pairs and an embedder.
 *
 * Implementations answer with `available: false` rather than erroring when they cannot serve; the
 * rerank stage still guards every call with a timeout and catchError. In this build the only client
 * is NO_MODELS, which reports both models unavailable.
 */
import { of, type Observable } from 'rxjs';

export interface ModelCandidate {
  id: string;
  /** At most MODEL_TEXT_CHARS characters. */
  text: string;
}

export type RerankResult = { available: true; model: string; scores: Map<string, number> } | { available: false; error: string };

export type EmbedResult =
  | { available: true; model: string; query: number[]; docs: Map<string, number[]> }
  | { available: false; error: string };

export interface ModelClient {
  rerank(query: string, candidates: readonly ModelCandidate[]): Observable<RerankResult>;
  embed(query: string, candidates: readonly ModelCandidate[]): Observable<EmbedResult>;
}

/** Text sent to the models per candidate (seed: first 2000 characters). */
export const MODEL_TEXT_CHARS = 2000;

export const NO_MODELS: ModelClient = {
  rerank: () => of({ available: false, error: 'no cross-encoder model installed' }),
  embed: () => of({ available: false, error: 'no embedding model installed' }),
};
