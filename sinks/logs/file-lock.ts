/**
 * An exclusive lock file for read-modify-write of small state files (`<file>.lock`, created with
 * O_EXCL). Hooks of one user run concurrently; without it, two updates of recent-searches.json or of
 * a session's injected ids read the same old state and one of them is lost. A lock left by a killed
 * process is taken over once older than STALE_LOCK_MS. Waiting is bounded: past `waitMs` the update
 * is skipped and the caller records that.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mkdirPrivate } from '../../io/atomic-write.js';

/** A lock older than this was left by a crashed or killed process (updates take milliseconds). */
const STALE_LOCK_MS = 10_000;
/** Default longest wait for the lock. */
const LOCK_WAIT_MS = 3_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class LockBusyError extends Error {
  readonly code = 'E_LOCK_BUSY';
  constructor(file: string) {
    super(`${path.basename(file)} is locked by another process`);
    this.name = 'LockBusyError';
  }
}

/** Run `fn` holding the lock of `file`; throws LockBusyError when the lock stays taken past `waitMs`. */
export function withFileLock<T>(file: string, fn: () => T, waitMs = LOCK_WAIT_MS): T {
  mkdirPrivate(path.dirname(file));
  const lock = `${file}.lock`;
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      // The lock is the file's existence; its pid is informative only (writing it may fail on a full disk).
      const fd = fs.openSync(lock, 'wx', 0o600);
      try {
        fs.writeSync(fd, String(process.pid));
      } catch {
        /* an empty lock file locks all the same */
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > until) throw new LockBusyError(file);
      sleep(2 + Math.floor(Math.random() * 8));
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
