/**
 * Ports: the interfaces through which the stages reach the outside world (models, the index), so an
 * operator never does IO itself and a test can hand it a fake. Implementations live in pipeline/ and
 * sources/.
 */
import { Observable, of } from 'rxjs';

export interface ModelCandidate {
  id: string;
  /** At most MODEL_TEXT_CHARS characters. */
  text: string;
}

export type RerankResult = { available: true; model: string; scores: Map<string, number> } | { available: false; error: string };

export type EmbedResult =
  { available: true; model: string; query: number[]; docs: Map<string, number[]> } | { available: false; error: string };

export type KnnResult = { available: true; model: string; hits: { path: string; score: number }[] } | { available: false; error: string };

export type VectorsResult = { available: true; model: string; vectors: number[][] } | { available: false; error: string };

export interface ModelClient {
  rerank(query: string, candidates: readonly ModelCandidate[]): Observable<RerankResult>;
  embed(query: string, candidates: readonly ModelCandidate[]): Observable<EmbedResult>;
  /** Embed texts (indexing). */
  embedTexts(texts: readonly string[]): Observable<VectorsResult>;
  /** Nearest stored note vectors of an index file to the query. */
  knn(indexFile: string, generation: number, query: string, k: number): Observable<KnnResult>;
  /** Model ids, or null when that model is not installed. */
  readonly models: { ce: string | null; embed: string | null };
}

export function unavailable<T>(error: string): Observable<T> {
  return of({ available: false, error } as T);
}

export const NO_MODELS: ModelClient = {
  rerank: () => unavailable('no cross-encoder model installed'),
  embed: () => unavailable('no embedding model installed'),
  embedTexts: () => unavailable('no embedding model installed'),
  knn: () => unavailable('no embedding model installed'),
  models: { ce: null, embed: null },
};
