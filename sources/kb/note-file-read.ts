/**
 * Reading one KB file for the index, bounded whatever the file system claims.
 */
import fs from 'node:fs';
import { inside, type KbFile } from './walk.js';

/** Larger notes are skipped as "too large" (a learning is a few KB; 1 MiB is generous). */
export const MAX_NOTE_BYTES = 1024 * 1024;
/** Bytes inspected for a NUL byte to classify a file as binary. */
const BINARY_SNIFF_BYTES = 8192;

export type ReadOutcome = { text: string } | { problem: string };

/**
 * Where an open descriptor really points (symlinks resolved), or null when that cannot be told.
 * Linux names it in /proc/self/fd; elsewhere the path is resolved and must still be the very file
 * open (same device and inode), else the name changed under us and the answer is unknown.
 */
function openedPath(fd: number, abs: string): string | null {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    /* no /proc: compare inodes */
  }
  try {
    const real = fs.realpathSync(abs);
    const a = fs.statSync(real);
    const b = fs.fstatSync(fd);
    return a.dev === b.dev && a.ino === b.ino ? real : null;
  } catch {
    return null;
  }
}

/**
 * Read a note, bounded whatever stat said: at most MAX_NOTE_BYTES + 1 bytes are read (a file in
 * /proc or one growing under us reports a size that means nothing), the descriptor is opened
 * non-blocking (a FIFO swapped in after the walk cannot hang the read) and must be a regular file.
 *
 * What is checked is what was opened, not what the path was when the walk listed it: a file the walk
 * saw as no link is opened with O_NOFOLLOW (a link swapped in since is refused), and the open
 * descriptor must lie inside the KB root (`confinedTo`), which also catches a parent folder swapped
 * for a link to somewhere else.
 */
export function readText(file: KbFile): ReadOutcome {
  const tooLarge = (n: number): ReadOutcome => ({
    problem: `file too large (${(n / 1048576).toFixed(1)} MiB > ${MAX_NOTE_BYTES / 1048576} MiB limit)`,
  });
  if (file.size > MAX_NOTE_BYTES) return tooLarge(file.size);
  let fd: number;
  try {
    const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = fs.constants;
    fd = fs.openSync(file.abs, O_RDONLY | O_NONBLOCK | (file.viaLink ? 0 : O_NOFOLLOW));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { problem: 'became a symlink after the KB was listed; not read' };
    return { problem: `cannot read: ${code ?? (err as Error).message}` };
  }
  let buf: Buffer;
  try {
    if (!fs.fstatSync(fd).isFile()) return { problem: 'not a regular file; not read' };
    if (file.confinedTo !== undefined) {
      const real = openedPath(fd, file.abs);
      if (real === null) return { problem: 'changed while being opened; not read' };
      if (!inside(file.confinedTo, real)) return { problem: `resolves to ${real}, outside the KB; not read` };
    }
    const cap = MAX_NOTE_BYTES + 1;
    buf = Buffer.allocUnsafe(Math.min(cap, Math.max(file.size, 4096)));
    let len = 0;
    for (;;) {
      if (len === buf.length) {
        if (len >= cap) break;
        const bigger = Buffer.allocUnsafe(Math.min(cap, buf.length * 2));
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = fs.readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
    }
    if (len > MAX_NOTE_BYTES) return tooLarge(len);
    buf = buf.subarray(0, len);
  } catch (err) {
    return { problem: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
  if (buf.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { problem: 'binary file (contains NUL bytes)' };
  return { text: buf.toString('utf8') };
}
