/**
 * Ports: the interfaces through which the stages reach the outside world (models, the index, the
 * recall cache, the retired-note lookups), so an operator never does IO itself and a test can hand
 * it a fake. Implementations live in pipeline/ and sources/.
 */
import { Observable, of } from 'rxjs';
import type { NoteLocation } from './note/index.js';
import type { RecallState } from './state.js';
import type { ArmOutcome, CacheTier, Candidate, Degradation, Embeddings } from './types.js';

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

/** A retired copy of a note: the same id or content in archived/ or documents/.forgotten/. */
export interface RetiredCopy {
  key: string;
  contentHash: string;
  declaredHash: string | null;
  location: NoteLocation;
  path: string;
}

/** A reflect.db ledger row marked as no longer the latest version of its learning. */
export interface LedgerRetiredRow {
  artifactPath: string | null;
  contentHash: string | null;
}

/**
 * Where the superseded filter learns which candidates are retired, by their own keys and hashes (so
 * the cost follows the candidate count, not the retired backlog). Each method may throw; the filter
 * records the failure as a degradation and lets the candidates through unfiltered by that lookup.
 */
export interface RetiredLookup {
  /** For each given key that a live note declares it supersedes, the superseding note's key. */
  supersededBy(keys: string[]): ReadonlyMap<string, string>;
  /** Retired copies whose key or content hash equals one of the given values. */
  retiredCopies(keys: string[], hashes: string[]): readonly RetiredCopy[];
  /** Ledger rows marked not latest that match the given file names or hashes; [] without a ledger. */
  ledgerRetired(fileNames: string[], hashes: string[]): readonly LedgerRetiredRow[];
}

/** What a cached fetch gives back: the retrieval half of a recall (arms, fusion and model scores). */
export interface CachedFetch {
  tier: Exclude<CacheTier, null>;
  arms: ArmOutcome[];
  candidates: Candidate[];
  /** The candidates the superseded filter took out (RecallState.retired); [] from an older entry. */
  retired: Candidate[];
  ce: Map<string, number> | null;
  embeddings: Embeddings | null;
  degraded: Degradation[];
}

/** What a fetch stores: the same retrieval half, as the recall produced it. */
export type FetchToStore = Pick<RecallState, 'arms' | 'candidates' | 'retired' | 'ce' | 'embeddings' | 'degraded'>;

/**
 * The recall cache of one request (its key is bound when the port is made). Both methods may throw;
 * the recall records a read failure as a miss plus a degradation, and a write failure as a degradation.
 */
export interface CachePort {
  /** The cached fetch of this request, or null on a miss (a cached note gone from the index is a miss). */
  read(): CachedFetch | null;
  write(fetch: FetchToStore): void;
}

/** No cache: every read misses, writes are dropped (`--no-cache`, or no trustworthy index generation). */
export const NO_CACHE: CachePort = { read: () => null, write: () => undefined };
