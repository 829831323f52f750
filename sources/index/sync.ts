/**
 * Bringing the index in line with the KB on disk (see refreshIndex). The batches are sized so a
 * deadline holds and a kill loses at most one batch.
 */
import { createHash } from 'node:crypto';
import type { SqlDatabase } from '../sqlite/index.js';
import { walkWithAttached, type KbFile, type WalkProblem } from '../kb/index.js';
import { getMeta, indexProblems, indexWarnings } from './schema.js';
import { yieldToReaders } from './readers.js';
import { IndexWriter, type KnownFile, type RefreshCounts } from './writer.js';
import type { IndexHandle, RefreshOptions, RefreshReport } from './handle.js';

/**
 * Batches of a refresh with a deadline (every hook): a batch transaction is closed after this long
 * or this many files, so the deadline holds, another writer (a hook saving note vectors) waits
 * little, and a kill loses at most one short batch.
 */
export const REFRESH_BATCH_MS = 200;
const REFRESH_BATCH_FILES = 500;
/**
 * Batches of a refresh without a deadline (`recall index`, the background refresher, a CLI
 * recall). Every commit flushes a new full-text segment that later merges cost again, so fewer,
 * larger batches index a cold KB faster; they stay under the busy timeout, which is all another
 * writer waits.
 */
const UNBOUNDED_BATCH_MS = 800;
const UNBOUNDED_BATCH_FILES = 4000;
/**
 * Without WAL (the wasm driver keeps a rollback journal) a reader waits while a batch is open, and a
 * writer that started its next batch at once would keep it waiting until its busy timeout. So such
 * batches stay well under the busy timeout, and while another process has the index open (see
 * announceReader) a refresh without a deadline waits after each batch until that process is done,
 * for a bounded time (see sources/index/readers.ts) (a process that keeps the index open for long slows the refresh
 * down, never stops it).
 */
const NO_WAL_BATCH_MS = 400;

/** Digest of the listing (names, mtimes, sizes). A changed order only costs a full comparison, never a wrong answer. */
function fingerprint(files: KbFile[]): string {
  let text = '';
  for (const f of files) text += `${f.rel}\0${f.mtimeMs}\0${f.size}\n`;
  return createHash('sha1').update(text).digest('hex');
}

function knownFiles(db: SqlDatabase): Map<string, KnownFile> {
  const known = new Map<string, KnownFile>();
  for (const r of db.prepare(`SELECT path, mtime_ms, size, content_hash, warning FROM files`).all() as (KnownFile & { path: string })[])
    known.set(r.path, r);
  return known;
}

interface Plan {
  todo: KbFile[];
  gone: string[];
  unchanged: number;
  /** Unchanged files read again all the same (see below). */
  recheck: Set<string>;
  seen: Set<string>;
}

/**
 * Files whose stat data changed (all of them when forced), files no longer there, and how many are
 * unchanged. The unchanged notes indexed under a distinct key (another file held theirs:
 * key-claims.ts) are read again after the others, so one whose key was freed since (the other file
 * edited, renamed or removed) gets it back; this runs only when the listing changed, and such notes
 * are few.
 */
function plan(files: KbFile[], known: Map<string, KnownFile>, force: boolean): Plan {
  const seen = new Set<string>();
  const todo: KbFile[] = [];
  const warned: KbFile[] = [];
  let unchanged = 0;
  for (const f of files) {
    seen.add(f.rel);
    const prev = known.get(f.rel);
    if (!force && prev && prev.mtime_ms === f.mtimeMs && prev.size === f.size) {
      if (prev.warning !== null) warned.push(f);
      else unchanged += 1;
    } else todo.push(f);
  }
  const gone = [...known.keys()].filter((p) => !seen.has(p));
  return { todo: [...todo, ...warned], gone, unchanged, recheck: new Set(warned.map((f) => f.rel)), seen };
}

/**
 * Apply `todo` in batches, each its own transaction, until done or past the deadline; returns how
 * many files were applied. A failed batch is rolled back with its counters, and its error thrown.
 */
function applyInBatches(h: IndexHandle, writer: IndexWriter, todo: KbFile[], total: number, opts: RefreshOptions): number {
  const now = opts.now ?? Date.now;
  const deadline = opts.deadlineMs ?? Infinity;
  const bounded = opts.deadlineMs !== undefined;
  const noWal = h.db.driver === 'wasm' && h.file !== ':memory:';
  const batchMs = opts.batchMs ?? (bounded ? REFRESH_BATCH_MS : noWal ? NO_WAL_BATCH_MS : UNBOUNDED_BATCH_MS);
  const batchFiles = opts.batchFiles ?? (bounded ? REFRESH_BATCH_FILES : UNBOUNDED_BATCH_FILES);
  const c = writer.counts;
  let next = 0;
  const batch = h.db.transaction((): boolean => {
    const started = performance.now();
    let changed = false;
    let n = 0;
    while (next < todo.length && n < batchFiles && (n === 0 || performance.now() - started < batchMs)) {
      if (writer.applyFile(todo[next]!)) changed = true;
      next += 1;
      n += 1;
      if (opts.onProgress && (next % 200 === 0 || next === todo.length)) opts.onProgress(c.unchanged + next, total);
    }
    if (changed) writer.bumpGeneration();
    return changed;
  });
  while (next < todo.length) {
    if (now() >= deadline) break;
    const before = { generation: c.generation, added: c.added, updated: c.updated, unchanged: c.unchanged, next };
    const problems = c.newProblems.length;
    try {
      batch.immediate();
    } catch (err) {
      // Rolled back: the counters of the lost batch must not be reported.
      ({ generation: c.generation, added: c.added, updated: c.updated, unchanged: c.unchanged, next } = before);
      c.newProblems.length = problems;
      throw err;
    }
    opts.onBatch?.();
    if (noWal && !bounded && next < todo.length) yieldToReaders(h.file);
  }
  return next;
}

/**
 * Bring the index in line with the KB on disk. Only files whose mtime or size changed are read;
 * a broken file is recorded as a problem and skipped, never fatal.
 *
 * Changed files are applied in batches, each its own transaction (short with a deadline, longer
 * without: see REFRESH_BATCH_MS and UNBOUNDED_BATCH_MS), so a reader sees progress, a kill loses one
 * batch at most, and `deadlineMs` can stop the refresh between batches (`complete: false`, `pending`
 * files left). The listing's fingerprint is stored only by a refresh that completed, so an
 * interrupted one is simply continued by the next call. Errors of the database (full disk, busy
 * writer, corruption) are thrown to the caller, after the batch in hand was rolled back; batches
 * committed before stay.
 */
export function refreshIndex(h: IndexHandle, opts: RefreshOptions = {}): RefreshReport {
  const t0 = performance.now();
  const { files, problems: walkProblems } = walkWithAttached(h.kbRoot, h.attached, { followOutside: h.followOutside === true });
  const fp = fingerprint(files);
  const generation = Number(getMeta(h.db, 'generation')) || 0;
  if (!opts.force && fp === getMeta(h.db, 'fingerprint')) {
    const problems = opts.problems === false ? [] : indexProblems(h);
    const warnings = opts.problems === false ? [] : indexWarnings(h);
    const nothing = { added: 0, updated: 0, removed: 0, unchanged: files.length, generation, newProblems: [] };
    return report(files.length, nothing, { problems, warnings, ms: performance.now() - t0, skipped: true, pending: 0 });
  }
  const known = knownFiles(h.db);
  const { todo, gone, unchanged, recheck, seen } = plan(files, known, opts.force === true);
  const counts: RefreshCounts = { added: 0, updated: 0, removed: 0, unchanged, generation, newProblems: [] };
  const writer = new IndexWriter(h, opts.force === true, known, counts, seen, recheck);
  const next = applyInBatches(h, writer, todo, files.length, opts);
  const done = (pending: number): RefreshReport =>
    report(
      files.length,
      { ...counts, newProblems: [...walkProblems, ...counts.newProblems] },
      { problems: indexProblems(h), warnings: indexWarnings(h), ms: performance.now() - t0, skipped: false, pending },
    );
  if (next < todo.length) return done(todo.length - next);
  h.db
    .transaction(() => {
      writer.removeGone(gone);
      h.db
        .prepare(`INSERT OR REPLACE INTO meta(k, v) VALUES ('fingerprint', ?), ('walk_problems', ?)`)
        .run(fp, JSON.stringify(walkProblems));
    })
    .immediate();
  if (opts.onProgress && todo.length === 0) opts.onProgress(files.length, files.length);
  return done(0);
}

function report(
  total: number,
  c: RefreshCounts,
  rest: { problems: WalkProblem[]; warnings: WalkProblem[]; ms: number; skipped: boolean; pending: number },
): RefreshReport {
  return {
    total,
    added: c.added,
    updated: c.updated,
    removed: c.removed,
    unchanged: c.unchanged,
    problems: rest.problems,
    newProblems: c.newProblems,
    warnings: rest.warnings,
    generation: c.generation,
    ms: rest.ms,
    skipped: rest.skipped,
    complete: rest.pending === 0,
    pending: rest.pending,
  };
}
