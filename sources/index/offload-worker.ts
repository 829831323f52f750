/**
 * Worker-thread side of sources/index/offload.ts: answers index lookups on its own read-only connections.
 *
 * A request names the index file, its instance id and the generation the caller reads. The worker
 * answers only from a connection that sees that same instance at that same generation, checked in
 * the read transaction that runs the lookup, so a result never differs from what the caller's own
 * connection would have returned. A connection to another file at that path (the index was rebuilt
 * or set aside) or one that lags is reopened once; a connection that is ahead (a newer commit) is
 * refused at once, and the caller runs the lookup itself.
 */
import { parentPort } from 'node:worker_threads';
import { openDatabase } from '../sqlite/index.js';
import { graphSearch } from './graph-search.js';
import type { IndexHandle } from './handle.js';
import { searchFts } from './lookups.js';
import { MAX_OPEN_FILES, type OffloadReply, type OffloadRequest } from './offload.js';

/** Connections by index file, least recently used first. */
const open = new Map<string, IndexHandle>();

function connect(file: string): IndexHandle {
  const db = openDatabase(file, { readonly: true, fileMustExist: true });
  // SQLite's stock 2 MB page cache, not better-sqlite3's 16 MB: three threads with 16 MB each cost
  // ~25 MB more RSS at 100k notes for no measurable speed (the OS file cache holds the index).
  db.pragma('cache_size = -2000');
  // Only `db` is read by the lookups run here; the rest describes how a KB is walked when refreshed.
  return { db, kbRoot: '', file, fallbackReason: null, attached: [] };
}

function close(file: string): void {
  const held = open.get(file);
  open.delete(file);
  try {
    held?.db.close();
  } catch {
    // Closing a connection to a replaced file can fail; it is dropped either way.
  }
}

/** A connection to `file`, most recently used; the least recently used beyond MAX_OPEN_FILES is closed. */
function connection(file: string): IndexHandle {
  const h = open.get(file) ?? connect(file);
  open.delete(file);
  open.set(file, h);
  if (open.size > MAX_OPEN_FILES) close(open.keys().next().value!);
  return h;
}

type Attempt = { value: unknown } | { instance: string; generation: number };

/** The lookup, run only if this connection reads the caller's file at the caller's generation. */
function attempt(h: IndexHandle, req: OffloadRequest): Attempt {
  return h.db.transaction((): Attempt => {
    const at = h.db
      .prepare(
        `SELECT (SELECT v FROM meta WHERE k = 'instance') AS instance, CAST((SELECT v FROM meta WHERE k = 'generation') AS INTEGER) AS generation`,
      )
      .get() as { instance: string | null; generation: number | null };
    const seen = { instance: at.instance ?? '', generation: at.generation ?? 0 };
    if (seen.instance !== req.instance || seen.generation !== req.generation) return seen;
    return { value: req.task === 'fts' ? searchFts(h, req.match, req.limit, req.opts) : graphSearch(h, req.query, req.limit, req.nowMs) };
  })();
}

function answer(req: OffloadRequest): unknown {
  for (let tries = 0; tries < 2; tries += 1) {
    const out = attempt(connection(req.file), req);
    if ('value' in out) return out.value;
    if (out.instance === req.instance && out.generation > req.generation)
      throw new Error(`index ${req.file} is at generation ${out.generation}, past the caller's ${req.generation}`);
    close(req.file);
  }
  throw new Error(`index ${req.file} is not the caller's file at generation ${req.generation} for this worker`);
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
// Code loaded: the pool may now hand this thread lookups.
parentPort?.postMessage({ ready: true } satisfies OffloadReply);
