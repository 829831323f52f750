/**
 * File-system helpers shared by every layer that writes or reads recall's own state:
 * owner-only folders, and bounded reads that refuse anything but a regular file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stallPoint } from './read-stall.js';

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

/** Longest unix socket path recall uses (sun_path is 104–108 bytes depending on the OS). */
export const MAX_SOCKET_PATH = 100;

/**
 * The folder for a socket (`leaf`) whose preferred path is too long, named by `dirHash` (a hash of
 * the state dir): `recall-<hash>` in the user's own runtime dir ($XDG_RUNTIME_DIR), else
 * `recall-<uid>-<hash>` in the temp dir, else in /tmp. A temp dir can itself be too long for a
 * socket (a CI runner's TMPDIR deep in its workspace): every hook would then run without its
 * server, two to three times slower. Whichever base is used, the folder must be this user's own and
 * private before a socket is bound or trusted there (the callers check it).
 */
export function shortSocketDir(dirHash: string, leaf: string, env: Readonly<Record<string, string | undefined>>, tmp: string): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  const shared = `recall-${myUid()}-${dirHash}`;
  const bases: [string, string][] = [
    [tmp, shared],
    ['/tmp', shared],
  ];
  if (runtime && path.isAbsolute(runtime) && ownPrivateDir(runtime)) bases.unshift([runtime, `recall-${dirHash}`]);
  const fits = bases.find(([base, folder]) => path.join(base, folder, leaf).length <= MAX_SOCKET_PATH) ?? bases[bases.length - 1]!;
  return path.join(...fits);
}

/** The owner of `p` when it exists and is not this user (null otherwise, and where the platform has no uids). */
export function foreignOwner(p: string): number | null {
  if (typeof process.getuid !== 'function') return null;
  try {
    const uid = fs.statSync(p).uid;
    return uid === myUid() ? null : uid;
  } catch {
    return null;
  }
}

/**
 * Why `dir` is no place to create a folder of this user in, or null: it belongs to another user
 * and others may write in it without the sticky bit (like a shared 0777 folder, unlike /tmp), so
 * its owner or anyone else could rename what recall makes there and put their own in its place.
 */
export function openForeignFolder(dir: string): string | null {
  if (typeof process.getuid !== 'function') return null;
  try {
    const st = fs.statSync(dir);
    if (st.uid === myUid() || (st.mode & 0o022) === 0 || (st.mode & 0o1000) !== 0) return null;
    return `${dir}, a folder of uid ${st.uid} that others may write in`;
  } catch {
    return null;
  }
}

export class StateDirError extends Error {
  readonly code = 'E_STATE_DIR';
  constructor(message: string) {
    super(message);
    this.name = 'StateDirError';
  }
}

/**
 * Refuse a state dir that exists and belongs to another user. Prompts, note text and session ids
 * go there: in another user's folder (a shared 0777 one, or a REFLECT_STATE_DIR set to someone
 * else's), that user reads them, or pre-makes the log files recall would append to. A folder not
 * made yet is fine: recall creates it, owner-only.
 */
export function checkStateDir(dir: string): void {
  const owner = foreignOwner(dir);
  if (owner !== null)
    throw new StateDirError(
      `state dir ${dir} belongs to uid ${owner}, not to this user; recall keeps nothing there (set REFLECT_STATE_DIR to a folder of yours)`,
    );
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
  const open = openForeignFolder(parent);
  if (open) throw new StateDirError(`${abs}: not created in ${open}`);
  try {
    fs.mkdirSync(abs, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** A regular file's text, read without blocking and at most `max` bytes; null when missing, special or too large. */
export function readSmallFile(file: string, max = MAX_READ_BYTES): string | null {
  return readSmallBytes(file, max)?.toString('utf8') ?? null;
}

/** A regular file's bytes, read without blocking and at most `max` bytes; null when missing, special or too large. */
export function readSmallBytes(file: string, max = MAX_READ_BYTES): Buffer | null {
  let fd: number;
  stallPoint(file);
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
    return buf.subarray(0, len);
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
