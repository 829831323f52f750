/**
 * An exclusive lock file for read-modify-write of small state files and of a KB's notes
 * (`<file>.lock`, created with O_EXCL). Hooks of one user run concurrently; without it, two updates
 * of recent-searches.json or of a session's injected ids read the same old state and one of them is
 * lost. Waiting is bounded: past `waitMs` the caller gets LockBusyError and records that.
 *
 * A lock is stale when its owner is gone, never merely because it is old: a holder suspended for a
 * while (SIGSTOP, a laptop lid, a debugger, a machine swapping) still holds it, and taking it from
 * under that holder lost one of two racing supersedes. The lock file names its owner as
 * "pid host start" (start: the process's start time, where /proc gives one, so a pid reused by a
 * later process does not look like the owner). A lock of this host whose pid is gone, or now belongs
 * to another process, is taken over at once; one whose owner lives is waited for, however old. Only
 * a lock that names no owner of this host (written by another machine sharing the folder, or left
 * empty by a process killed between creating and writing it) is judged by age, STALE_LOCK_MS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirPrivate } from '../../io/atomic-write.js';
import { stallPoint } from '../../io/read-stall.js';

/** Age after which a lock naming no owner on this host is taken as abandoned (updates take milliseconds). */
const STALE_LOCK_MS = 10_000;
/** Default longest wait for the lock. */
export const LOCK_WAIT_MS = 3_000;

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

/** A process's start time in clock ticks since boot (/proc/PID/stat, field 22); '' where there is no /proc. */
export function processStart(pid: number): string {
  let stat: string;
  try {
    // procfs, not a file anyone can plant: read whole (its files report size 0, so no sized read).
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

let ownerText: string | null = null;

/**
 * What a lock file says of its owner: this process, whose pid, host and start time never change, so
 * /proc is read once per process, not on every lock (the recall server takes three per hook call).
 */
export const lockOwnerText = (): string => (ownerText ??= `${process.pid} ${os.hostname()} ${processStart(process.pid)}`.trim());

/**
 * Whether the owner a lock file names is gone: 'gone' (its pid is free or belongs to a later
 * process), 'alive', or 'unknown' (no owner written, or an owner on another host).
 */
export function lockOwnerState(text: string): 'gone' | 'alive' | 'unknown' {
  const [pidText, host, start] = text.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || host !== os.hostname()) return 'unknown';
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the pid lives, as another user's process (a reused pid, or a sudo run): not free.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
  }
  const now = processStart(pid);
  return start && now && now !== start ? 'gone' : 'alive';
}

/**
 * A lock file as judged. Its descriptor stays open until the judgement is acted on: while it is
 * open the file's inode cannot be freed, so no newer lock can be created under the same inode
 * number (ext4 hands a freed number straight to the next file of the folder). Without that pin, a
 * waiter that read the owner of a lock just before its owner released it and exited judged it
 * "gone", found the next holder's new lock under the same number, and removed it: two writers then
 * held the lock at once and one supersede was lost.
 */
export interface JudgedLock {
  /** -1 for a lock this user cannot open (see judgeLock). */
  fd: number;
  ino: number;
  dev: number;
  stale: boolean;
}

/** Open and judge the lock at `lock` (null when there is none now). The caller must pass the result to removeIfStale. */
export function judgeLock(lock: string): JudgedLock | null {
  stallPoint(lock);
  let fd: number;
  try {
    fd = fs.openSync(lock, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // released meanwhile
    return unopenedLock(lock);
  }
  try {
    const st = fs.fstatSync(fd);
    // The owner is read from the very file judged, not from whatever the path names by then.
    const buf = Buffer.alloc(st.isFile() ? Math.min(st.size, 4096) : 0);
    const len = buf.length ? fs.readSync(fd, buf, 0, buf.length, 0) : 0;
    const owner = lockOwnerState(buf.subarray(0, len).toString('utf8'));
    const stale = owner === 'gone' || (owner === 'unknown' && Date.now() - st.mtimeMs > STALE_LOCK_MS);
    return { fd, ino: st.ino, dev: st.dev, stale };
  } catch {
    fs.closeSync(fd);
    return null;
  }
}

/**
 * A lock this user cannot open (another user's 0600 lock in a KB they share, a socket) names no
 * owner it can read: judged by its age, as one naming no owner is, only without the pin.
 */
function unopenedLock(lock: string): JudgedLock | null {
  try {
    const st = fs.statSync(lock);
    return { fd: -1, ino: st.ino, dev: st.dev, stale: Date.now() - st.mtimeMs > STALE_LOCK_MS };
  } catch {
    return null; // released meanwhile
  }
}

/**
 * Remove the lock judged stale, and only that very file (the path may name a newer lock by now).
 * Waiters that judged the same dead lock take turns removing it (`<lock>.clear`): otherwise one
 * could check the path, the other remove the dead lock, a third writer take the lock anew, and
 * the first remove that live lock.
 */
export function removeIfStale(lock: string, judged: JudgedLock): void {
  try {
    if (!judged.stale) return;
    const turn = `${lock}.clear`;
    try {
      fs.closeSync(fs.openSync(turn, 'wx', 0o600));
    } catch {
      // Another waiter is removing it now; a turn left by a waiter killed mid-way is cleared by age.
      clearAbandonedTurn(turn);
      return;
    }
    try {
      const now = fs.statSync(lock);
      if (now.ino === judged.ino && now.dev === judged.dev) fs.rmSync(lock, { force: true });
    } finally {
      fs.rmSync(turn, { force: true });
    }
  } catch {
    /* released meanwhile */
  } finally {
    if (judged.fd >= 0) fs.closeSync(judged.fd);
  }
}

/** A removal turn is held for microseconds: one older than STALE_LOCK_MS was left by a killed waiter. */
function clearAbandonedTurn(turn: string): void {
  try {
    if (Date.now() - fs.statSync(turn).mtimeMs > STALE_LOCK_MS) fs.rmSync(turn, { force: true });
  } catch {
    /* gone meanwhile */
  }
}

/** Run `fn` holding the lock of `file`; throws LockBusyError when the lock stays taken past `waitMs`. */
export function withFileLock<T>(file: string, fn: () => T, waitMs = LOCK_WAIT_MS): T {
  mkdirPrivate(path.dirname(file));
  const lock = `${file}.lock`;
  const until = Date.now() + waitMs;
  let mine: number;
  for (;;) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o600);
      try {
        mine = fs.fstatSync(fd).ino;
        // The owner is written at once; a lock left empty (a full disk) is judged by its age.
        fs.writeSync(fd, lockOwnerText());
      } catch {
        /* an empty lock file locks all the same */
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const judged = judgeLock(lock);
      if (judged) removeIfStale(lock, judged);
      if (Date.now() > until) throw new LockBusyError(file);
      sleep(2 + Math.floor(Math.random() * 8));
    }
  }
  try {
    return fn();
  } finally {
    // Only this process's own lock: one taken over meanwhile is its new owner's to remove.
    try {
      if (mine! === undefined || fs.statSync(lock).ino === mine) fs.rmSync(lock, { force: true });
    } catch {
      /* already gone */
    }
  }
}
