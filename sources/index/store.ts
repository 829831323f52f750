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
 * This module gathers the index's store API in one place (other folders import the folder's entry,
 * index.ts); the work lives in: schema (tables, rows), open (opening, failures, healing), readers
 * (readers of a no-WAL index), sync and writer (refresh), lookups (read queries), vectors, relevance.
 * The shared types live in handle.ts, which the parts import, so no part imports this facade back.
 */
export type { IndexHandle, RefreshOptions, RefreshReport } from './handle.js';
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
