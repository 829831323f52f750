/**
 * Reading one KB file for the index, bounded whatever the file system claims.
 */
import fs from 'node:fs';
import type { KbFile } from './kb-walk.js';

/** Larger notes are skipped as "too large" (a learning is a few KB; 1 MiB is generous). */
export const MAX_NOTE_BYTES = 1024 * 1024;
/** Bytes inspected for a NUL byte to classify a file as binary. */
const BINARY_SNIFF_BYTES = 8192;

export type ReadOutcome = { text: string } | { problem: string };

/**
 * Read a note, bounded whatever stat said: at most MAX_NOTE_BYTES + 1 bytes are read (a file in
 * /proc or one growing under us reports a size that means nothing), the descriptor is opened
 * non-blocking (a FIFO swapped in after the walk cannot hang the read) and must be a regular file.
 */
export function readText(file: KbFile): ReadOutcome {
  const tooLarge = (n: number): ReadOutcome => ({
    problem: `file too large (${(n / 1048576).toFixed(1)} MiB > ${MAX_NOTE_BYTES / 1048576} MiB limit)`,
  });
  if (file.size > MAX_NOTE_BYTES) return tooLarge(file.size);
  let fd: number;
  try {
    fd = fs.openSync(file.abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    return { problem: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
  let buf: Buffer;
  try {
    if (!fs.fstatSync(fd).isFile()) return { problem: 'not a regular file; not read' };
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
