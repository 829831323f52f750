/**
 * Keeping an index fresh without ever making a caller wait past its deadline:
 *
 * - one writer at a time per index, under `<index>.refresh.lock` (pid and time; refreshed after
 *   every committed batch, stale once its process is gone or it stopped beating);
 * - a caller that finds the lock taken does not wait: it reads the last committed index;
 * - a refresh that reaches its deadline stops after a committed batch and hands the rest to one
 *   detached background refresher (`refresher.mjs`), which takes the lock and finishes the job;
 * - a database error is classified: corruption marks the index for a check on the next open, a full
 *   disk or a busy writer leave it as it is. Every such event comes back as a degradation.
 *
 * These functions are what a long-running server (file watcher, warm index) would call as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { IndexHandle, RefreshReport } from './handle.js';
import { classifyDbError, markSuspect } from './open.js';
import { refreshIndex } from './sync.js';
import { pidAlive } from './readers.js';

/** A lock whose holder stopped refreshing it for this long is abandoned (a killed refresher). */
export const LOCK_STALE_MS = 60_000;

export interface RefreshLock {
  /** Mark the holder as alive (after each committed batch). */
  beat(): void;
  release(): void;
}

export const refreshLockFile = (indexFile: string): string => `${indexFile}.refresh.lock`;

/** Who holds the refresh lock of an index, or null when nobody (live) does. */
export function refreshLockHolder(indexFile: string, nowMs = Date.now()): number | null {
  const lock = refreshLockFile(indexFile);
  try {
    const st = fs.statSync(lock);
    const pid = Number(fs.readFileSync(lock, 'utf8').split(' ')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid) || nowMs - st.mtimeMs > LOCK_STALE_MS) return null;
    return pid;
  } catch {
    return null;
  }
}

/** Take the refresh lock of an index without waiting; null when a live process holds it. */
export function tryRefreshLock(indexFile: string): RefreshLock | null {
  const lock = refreshLockFile(indexFile);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o600);
      try {
        fs.writeSync(fd, `${process.pid} ${Date.now()}`);
      } catch {
        // A lock without its owner's pid would look abandoned to others: give it up (full disk).
        fs.closeSync(fd);
        fs.rmSync(lock, { force: true });
        return null;
      }
      fs.closeSync(fd);
      let held = true;
      return {
        beat: () => {
          if (!held) return;
          try {
            const t = new Date();
            fs.utimesSync(lock, t, t);
          } catch {
            /* removed under us: the next taker will find it free anyway */
          }
        },
        release: () => {
          if (!held) return;
          held = false;
          try {
            if (Number(fs.readFileSync(lock, 'utf8').split(' ')[0]) === process.pid) fs.rmSync(lock, { force: true });
          } catch {
            /* already gone */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      if (refreshLockHolder(indexFile) !== null) return null;
      fs.rmSync(lock, { force: true });
    }
  }
  return null;
}

/** The background refresher's entry (bundled next to the CLI), or null when not built. */
export function refresherEntry(moduleUrl: string = import.meta.url): string | null {
  const here = path.dirname(fileURLToPath(moduleUrl));
  for (const rel of ['refresher.mjs', '../../bundle/refresher.mjs', '../../dist/bundle/refresher.mjs']) {
    const p = path.resolve(here, rel);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

/** Start one detached refresher for a KB (it exits at once if another holds the lock). */
export function startBackgroundRefresh(kbRoot: string, env: Readonly<Record<string, string | undefined>>): boolean {
  const entry = refresherEntry();
  if (!entry) return false;
  try {
    const child = spawn(process.execPath, [entry, '--kb', kbRoot], { detached: true, stdio: 'ignore', env: env });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export interface RefreshWithinOptions {
  /** Stop refreshing at this epoch-ms time (the rest continues in the background). */
  deadlineMs?: number;
  problems?: boolean;
  /** Environment of a background refresher; none is started when absent. */
  backgroundEnv?: Readonly<Record<string, string | undefined>>;
  now?: () => number;
}

export interface RefreshOutcome {
  report: RefreshReport;
  /** What did not go as asked, one line each (recorded as degradations by the caller). */
  notices: string[];
  /** Whether the refresh was handed to a background refresher. */
  background: boolean;
}

function notRefreshed(): RefreshReport {
  return {
    total: 0,
    added: 0,
    updated: 0,
    removed: 0,
    unchanged: 0,
    problems: [],
    newProblems: [],
    warnings: [],
    generation: 0,
    ms: 0,
    skipped: true,
    complete: false,
    pending: 0,
  };
}

/**
 * Refresh an index for a caller with a deadline. Never waits for another writer and never throws
 * for a database problem: whatever happens, the index can be read in its last committed state.
 */
export function refreshWithin(h: IndexHandle, opts: RefreshWithinOptions = {}): RefreshOutcome {
  const notices: string[] = [];
  const memory = h.file === ':memory:';
  const lock = memory ? null : tryRefreshLock(h.file);
  if (!memory && !lock) {
    const pid = refreshLockHolder(h.file);
    notices.push(
      pid
        ? `index refresh in progress in another process (pid ${pid}); reading the last committed index`
        : 'index not refreshed: its lock file cannot be created (disk full or state dir not writable); reading the last committed index',
    );
    return { report: notRefreshed(), notices, background: false };
  }
  let report: RefreshReport;
  try {
    report = refreshIndex(h, {
      ...(opts.deadlineMs !== undefined ? { deadlineMs: opts.deadlineMs } : {}),
      ...(opts.problems !== undefined ? { problems: opts.problems } : {}),
      ...(opts.now ? { now: opts.now } : {}),
      ...(lock ? { onBatch: () => lock.beat() } : {}),
    });
  } catch (err) {
    const kind = classifyDbError(err, h.file);
    if (kind === 'corrupt') markSuspect(h);
    const what = {
      corrupt: 'the index is corrupt (rebuilt on the next call)',
      full: 'the disk is full',
      busy: 'another writer holds the index',
      readonly: 'the index cannot be written',
      other: 'it failed',
    }[kind];
    notices.push(`index not refreshed: ${what} (${(err as Error).message.split('\n')[0]}); reading the last committed index`);
    return { report: notRefreshed(), notices, background: false };
  } finally {
    lock?.release();
  }
  let background = false;
  if (!report.complete) {
    background = !memory && opts.backgroundEnv !== undefined && startBackgroundRefresh(h.kbRoot, opts.backgroundEnv);
    notices.push(
      `index refresh reached its deadline with ${report.pending} changed files left` +
        (background ? '; a background refresher continues' : memory ? ' (in-memory index: nothing is kept)' : ''),
    );
  }
  return { report, notices, background };
}

/** A failed SQLite statement is retried this many times when another writer held the file (SQLITE_BUSY). */
const BUSY_RETRIES = 5;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Refresh an index for a caller that may wait (the note commands: `recall add --id`, `supersede`,
 * `forget`, `show`, `list`), so that what it looks up includes every note written before it. It
 * waits up to `waitMs` for the refresh lock (a `recall index` or a background refresher holding it
 * refreshes the same files), then refreshes under it; a refresh that met another writer's SQLite
 * lock (SQLITE_BUSY: a vector save, a writer of another version) is retried a few times with a
 * growing pause. Never throws for a database problem: `fresh` is false and `notice` says why, and
 * the caller decides whether the last committed index is good enough.
 */
export function refreshWaiting(h: IndexHandle, waitMs: number, now: () => number = Date.now): { fresh: boolean; notice: string | null } {
  const memory = h.file === ':memory:';
  const until = now() + waitMs;
  let lock: RefreshLock | null = null;
  if (!memory) {
    for (let unlockable = 0; !lock;) {
      lock = tryRefreshLock(h.file);
      if (lock) break;
      const pid = refreshLockHolder(h.file);
      if (pid === null && (unlockable += 1) >= 2) break; // the lock file cannot be created: SQLite alone keeps writers apart
      if (pid !== null && now() > until)
        return { fresh: false, notice: `the index is being refreshed by process ${pid} for longer than ${Math.round(waitMs / 1000)} s` };
      if (pid !== null) sleepSync(20 + Math.floor(Math.random() * 30));
    }
  }
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        refreshIndex(h, { problems: false, ...(lock ? { onBatch: () => lock.beat() } : {}) });
        return { fresh: true, notice: null };
      } catch (err) {
        const kind = classifyDbError(err, h.file);
        if (kind === 'corrupt') markSuspect(h);
        if (kind !== 'busy' || attempt >= BUSY_RETRIES || now() > until)
          return { fresh: false, notice: `the index could not be refreshed: ${(err as Error).message.split('\n')[0]}` };
        sleepSync(50 * 2 ** attempt);
      }
    }
  } finally {
    lock?.release();
  }
}
