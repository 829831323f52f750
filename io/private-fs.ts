/**
 * File-system helpers shared by every layer that writes or reads recall's own state:
 * owner-only folders, and bounded reads that refuse anything but a regular file.
 */
import fs from 'node:fs';
import path from 'node:path';

/** This process's user id (0 where the platform has none, as on Windows). */
export const myUid = (): number => (typeof process.getuid === 'function' ? process.getuid() : 0);

/** A real folder (not a link) owned by this user that no one else may enter: where sockets may live. */
export function ownPrivateDir(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === myUid() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Largest state file read back (recent searches, cache entries, ledgers: all far smaller). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/**
 * mkdir -p with mode 0700 for each folder it creates. Written out instead of `recursive: true`,
 * whose retry loop never ends under /proc (a malformed REFLECT_STATE_DIR must not hang a hook).
 */
export function mkdirPrivate(dir: string): void {
  const abs = path.resolve(dir);
  try {
    if (fs.statSync(abs).isDirectory()) return;
  } catch {
    /* created below */
  }
  const parent = path.dirname(abs);
  if (parent !== abs) mkdirPrivate(parent);
  try {
    fs.mkdirSync(abs, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** A regular file's text, read without blocking and at most `max` bytes; null when missing, special or too large. */
export function readSmallFile(file: string, max = MAX_READ_BYTES): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    const buf = Buffer.alloc(st.size);
    let len = 0;
    while (len < buf.length) {
      const n = fs.readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
    }
    return buf.subarray(0, len).toString('utf8');
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Read and parse a JSON file; missing, special, oversized or corrupt → fallback. */
export function readJson<T>(file: string, fallback: T): T {
  const text = readSmallFile(file);
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
