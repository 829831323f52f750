/**
 * Worker-thread side of index-offload.ts: answers index lookups on its own read-only connection.
 *
 * A request names the index file and the generation the caller reads. The worker answers only when
 * its connection sees that same generation, so a result never differs from what the caller's own
 * connection would have returned: an index rebuilt under the same name (another inode) is reopened,
 * and a connection that still lags is refused (the caller then runs the lookup itself).
 */
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { openDatabase } from './sqlite.js';
import { graphSearch } from './graph-arm.js';
import { indexGeneration, searchFts, type IndexHandle } from './index-store.js';
import { MAX_OPEN_FILES, type OffloadReply, type OffloadRequest } from './index-offload.js';

interface Open {
  handle: IndexHandle;
  ino: number;
}

/** Connections by index file, least recently used first. */
const open = new Map<string, Open>();

function inode(file: string): number {
  return fs.statSync(file).ino;
}

function connect(file: string): Open {
  const db = openDatabase(file, { readonly: true, fileMustExist: true });
  // SQLite's stock 2 MB page cache, not better-sqlite3's 16 MB: three threads with 16 MB each cost
  // ~25 MB more RSS at 100k notes for no measurable speed (the OS file cache holds the index).
  db.pragma('cache_size = -2000');
  // Only `db` is read by the lookups run here; the rest describes how a KB is walked when refreshed.
  return { handle: { db, kbRoot: '', file, fallbackReason: null, attached: [] }, ino: inode(file) };
}

function close(file: string): void {
  const held = open.get(file);
  open.delete(file);
  try {
    held?.handle.db.close();
  } catch {
    // Closing a connection to a replaced file can fail; it is dropped either way.
  }
}

/** A connection to `file` that reads `generation`, reopening once when the file was replaced or lags. */
function handleFor(file: string, generation: number): IndexHandle {
  let held = open.get(file);
  if (held && held.ino !== inode(file)) close(file);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    held = open.get(file) ?? connect(file);
    open.delete(file);
    open.set(file, held);
    if (open.size > MAX_OPEN_FILES) close(open.keys().next().value!);
    if (indexGeneration(held.handle) === generation) return held.handle;
    close(file);
  }
  throw new Error(`index ${file} is not at generation ${generation} for this worker`);
}

function answer(req: OffloadRequest): unknown {
  const h = handleFor(req.file, req.generation);
  return req.task === 'fts' ? searchFts(h, req.match, req.limit) : graphSearch(h, req.query, req.limit, req.nowMs);
}

parentPort?.on('message', (req: OffloadRequest) => {
  let reply: OffloadReply;
  try {
    reply = { id: req.id, ok: true, value: answer(req) };
  } catch (err) {
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
