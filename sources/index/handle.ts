// The index's shared types: a leaf that imports none of its siblings at run time, so every part of
// sources/index/ can name the handle without importing the entry (index.ts) that re-exports the parts.
import type { SqlDatabase } from '../sqlite/index.js';
import type { WalkProblem, AttachedRoot } from '../kb/index.js';
import type { IndexOffload } from './offload.js';

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
  /**
   * Notes indexed all the same with a warning (another file held their id), one line each; listed
   * whenever `problems` are.
   */
  warnings: WalkProblem[];
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
