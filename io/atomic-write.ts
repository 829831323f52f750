/**
 * State files, written so that nothing recall stores is readable by other users and nothing in the
 * state dir can hang or trick a writer:
 * - folders are created 0700 and files 0600 (whatever the umask);
 * - replacement is atomic: a sibling temp file (created exclusively), then a rename, so a concurrent
 *   reader sees the old file or the new one, never a torn one;
 * - appends use one write on an O_APPEND descriptor (lines below PIPE_BUF interleave whole on POSIX
 *   filesystems), opened non-blocking and without following a symlink, and only to a regular file:
 *   a FIFO or a device planted at a log's name is refused at once instead of blocking the hook;
 * - a log that reached its size bound is rotated to `<name>.1` (one old generation kept);
 * - reads are bounded and refuse anything but a regular file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

import { foreignOwner, mkdirPrivate, myUid } from './private-fs.js';

export { mkdirPrivate };
export { StateDirError, checkStateDir } from './private-fs.js';

const { O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK, O_NOFOLLOW } = fs.constants;

/**
 * Create the state dir owner-only, and take group/other access away from one made by an older
 * version (only when this user owns it). Never throws.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirPrivate(dir);
    const st = fs.statSync(dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    // Only a directory: a state dir set to /dev/null (or any device or file) must never have its
    // mode changed; as root that would make /dev/null unusable for every program on the machine.
    if (st.isDirectory() && st.uid === uid && (st.mode & 0o077) !== 0) fs.chmodSync(dir, st.mode & 0o700);
  } catch {
    /* a read-only or foreign state dir: writers report their own failures */
  }
}

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirPrivate(path.dirname(file));
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, data, { flag: 'wx', mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (err) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* nothing to clean */
    }
    throw err;
  }
}

/** A log or its folder that belongs to another user: appending would hand them what recall logs. */
export class NotOwnedError extends Error {
  readonly code = 'E_NOT_OWNED';
  constructor(file: string, uid: number) {
    super(`${file} belongs to uid ${uid}, not to this user; not written`);
    this.name = 'NotOwnedError';
  }
}

export class NotARegularFileError extends Error {
  readonly code = 'E_NOT_REGULAR';
  constructor(file: string) {
    super(`${file} is not a regular file; not written`);
    this.name = 'NotARegularFileError';
  }
}

/** Move `file` to `<file>.1` once it holds `maxBytes` or more (the previous `.1` is replaced). */
function rotateIfFull(file: string, maxBytes: number): void {
  try {
    const st = fs.lstatSync(file);
    if (st.isFile() && st.size >= maxBytes) fs.renameSync(file, `${file}.1`);
  } catch {
    /* missing: nothing to rotate */
  }
}

export interface AppendOptions {
  /** Rotate the file to `<file>.1` when it reaches this size (default: never). */
  maxBytes?: number;
}

/**
 * Append text to a regular file of this user (created 0600); throws for a FIFO, device, socket or
 * symlink at that name, and for a file or folder another user owns (a pre-made 0666 log in a shared
 * folder would hand that user every line).
 */
export function appendText(file: string, text: string, opts: AppendOptions = {}): void {
  const dirOwner = foreignOwner(path.dirname(file));
  if (dirOwner !== null) throw new NotOwnedError(path.dirname(file), dirOwner);
  mkdirPrivate(path.dirname(file));
  if (opts.maxBytes !== undefined) rotateIfFull(file, opts.maxBytes);
  let fd: number;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOFOLLOW, 0o600);
  } catch (err) {
    // ENXIO: a FIFO nobody reads; ELOOP: a symlink. Either way not a log we write.
    if (['ENXIO', 'ELOOP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw new NotARegularFileError(file);
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotARegularFileError(file);
    if (typeof process.getuid === 'function' && st.uid !== myUid()) throw new NotOwnedError(file, st.uid);
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

export function appendLine(file: string, record: unknown, opts: AppendOptions = {}): void {
  appendText(file, `${JSON.stringify(record)}\n`, opts);
}

export { readJson, readSmallBytes, readSmallFile } from './private-fs.js';
