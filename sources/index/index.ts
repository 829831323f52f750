// Entry of sources/index/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { embedMissing } from './embed-notes.js';
export { normaliseEntity } from './entity-graph.js';
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
} from './queries.js';
export { refreshLockHolder, refreshWaiting, refreshWithin, tryRefreshLock } from './refresh.js';
export { linkedNotes, termStats } from './relevance.js';
export { indexFileFor, indexGeneration, indexProblems } from './schema.js';
export type { IndexHandle, RefreshReport } from './handle.js';
export { MAX_NOTE_BYTES } from '../kb/index.js';
export { refreshIndex } from './sync.js';
export { countMissingVectors, notesMissingVectors, saveVectors, storedVectors, vectorCounts } from './vectors.js';
