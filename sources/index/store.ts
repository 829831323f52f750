/**
 * The embedded persistent index: one SQLite file per KB root under `<state dir>/index/`, never
 * inside the KB (which may be read-only).
 *
 * - `notes` holds each parsed note (metadata as JSON plus its text), `notes_fts` an FTS5 index over
 *   title, tags, key insight, structured fields and body of the live notes only (external content,
 *   kept in sync by triggers; archived and forgotten notes are looked up by key and hash, never searched).
 * - `files` remembers every file's mtime and size so a refresh re-reads only what changed; a
 *   fingerprint of the whole listing lets an unchanged KB skip even that comparison.
 * - `generation` increases on every committed batch that changed something; the recall cache keys on it.
 *
 * A refresh commits in small batches and can stop at a deadline: what it committed survives a
 * kill, and the next refresh (or a background refresher, see sources/index/refresh.ts) carries on from there.
 * Readers (WAL mode) always see the last committed state, never wait for a writer.
 *
 * Failures are told apart: a full disk or a busy writer leave the index as it is (recall reads the
 * last committed state); only a file SQLite reports as corrupt is set aside (one copy kept) and
 * rebuilt. When the state dir cannot be written the index lives in memory for this process (and says so).
 *
 * This module is the index's one entry point; the work lives in: index-schema (tables, rows),
 * index-open (opening, failures, healing), index-readers (readers of a no-WAL index), index-sync and
 * index-writer (refresh), index-lookups (read queries), index-vectors, index-relevance.
 */
import type { SqlDatabase } from '../sqlite/index.js';
import type { WalkProblem, AttachedRoot } from '../kb/index.js';
import type { IndexOffload } from './offload.js';

export { MAX_NOTE_BYTES } from '../kb/index.js';
export { indexFileFor, indexGeneration, indexInstance, indexProblems, rowToNote, type NoteRow } from './schema.js';
export { classifyDbError, closeIndex, IndexUnavailableError, markSuspect, openIndex, rebuildIndex, setBusyTimeout } from './open.js';
export type { DbFailure, OpenIndexOptions } from './open.js';
export { REFRESH_BATCH_MS, refreshIndex } from './sync.js';
export {
  BM25_WEIGHTS,
  countNotes,
  findRetired,
  findSupersededBy,
  notesByKeys,
  notesByPaths,
  notesInWindow,
  notesMentioning,
  searchFts,
} from './lookups.js';
export type { FtsOptions, RetiredMatch, ScoredRow } from './lookups.js';
export { countMissingVectors, notesMissingVectors, saveVectors, storedVectors, vectorCounts, type VectorCounts } from './vectors.js';
export { linkedNotes, termStats } from './relevance.js';

export interface IndexHandle {
  db: SqlDatabase;
  kbRoot: string;
  /** Index file path, or ':memory:'. */
  file: string;
  /** Why the index is in memory, or was rebuilt, when it is. */
  fallbackReason: string | null;
  /** Follow symlinks that leave the KB root (RECALL_FOLLOW_OUTSIDE_LINKS=1). */
  followOutside?: boolean;
  /** Local fleet-import ledger consulted for the provenance of notes as they are indexed. */
  fleetLedger?: string;
  /** Folders indexed with the KB under their own path prefix (the pulled team shard). */
  attached: readonly AttachedRoot[];
  /** Worker threads that run this index's lookups in parallel (the recall server only); absent = in this thread. */
  offload?: IndexOffload;
}

export interface RefreshReport {
  total: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Files that could not be used, with the reason (one line each). */
  problems: WalkProblem[];
  /** Problems found by this refresh only (files read this time). */
  newProblems: WalkProblem[];
  generation: number;
  ms: number;
  /** True when the fingerprint matched and nothing was compared or read. */
  skipped: boolean;
  /** False when the deadline stopped the refresh: `pending` changed files were left for later. */
  complete: boolean;
  pending: number;
}

export interface RefreshOptions {
  /** Re-read every file (`recall index`). */
  force?: boolean;
  /** Also list the problems recorded earlier when nothing changed (default true; off on the hot path). */
  problems?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Stop (after committing the batch in hand) once this epoch-ms time has passed. */
  deadlineMs?: number;
  /** Longest a batch transaction is kept open, ms (default: by caller and driver, see below). */
  batchMs?: number;
  /** Most files applied in one batch (default: by caller, see below). */
  batchFiles?: number;
  /** Called after each committed batch (a background refresher refreshes its lock there). */
  onBatch?: () => void;
  now?: () => number;
}
