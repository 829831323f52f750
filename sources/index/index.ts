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
 * The work lives in: schema (tables, rows), open (opening, failures, healing), readers (readers of
 * a no-WAL index), sync and writer (refresh), lookups (read queries), vectors, relevance; the shared
 * types live in handle.ts, which the parts import, so no part imports this entry back.
 */
// Entry of sources/index/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { embedMissing } from './embed-notes.js';
export { normaliseEntity } from './entity-graph.js';
export { ftsQuery } from './fts-query.js';
export { type GraphHit, graphSearch } from './graph-search.js';
export {
  type FtsOptions,
  type ScoredRow,
  countNotes,
  findRetired,
  findSupersededBy,
  notesByKeys,
  notesByPaths,
  notesInWindow,
  notesMentioning,
  searchFts,
} from './lookups.js';
export { IndexWorkers, type OffloadStats } from './offload.js';
export { type OpenIndexOptions, classifyDbError, closeIndex, markSuspect, openIndex, rebuildIndex, setBusyTimeout } from './open.js';
export {
  fileMtimesOutside,
  keyOfHashedId,
  liveNotes,
  noteByFileStem,
  notesByDate,
  notesDeclaring,
  notesNamed,
  notesOutside,
  problemFileLike,
  sidecarText,
  supersedeLinksOutside,
  supersededKeys,
  supersedingPairs,
} from './queries.js';
export { refreshLockHolder, refreshWaiting, refreshWithin, tryRefreshLock } from './refresh.js';
export { MAX_LINK_ENTITIES, MAX_SUPERSEDES_CLAIMS, linkedNotes, successorNotes, termStats } from './relevance.js';
export { indexFileFor, indexGeneration, indexProblems, indexWarnings } from './schema.js';
export type { IndexHandle, RefreshReport } from './handle.js';
export { MAX_NOTE_BYTES } from '../kb/index.js';
export { refreshIndex } from './sync.js';
export { countMissingVectors, notesMissingVectors, saveVectors, storedVectors, vectorCounts } from './vectors.js';
