/**
 * A test seam, and nothing else: the stall of a file system that stops answering (a hung NFS or
 * FUSE mount, a dying disk), which a test cannot otherwise make without mounting one.
 *
 * Once stallReadsUnder(DIR) was called, every read recall makes of a project's files through
 * stallPoint() (the `.git` files, a transcript) blocks its thread for good when the file is under
 * DIR, as a read(2) on a hung mount does: not an error, not a timeout, no answer at all.
 *
 * Only the recall server's own command line turns it on (`--test-stall-reads DIR`, server/main.ts),
 * which only a test writes: the thin client starts the server with `--socket` alone. Not an
 * environment variable: a repository can set those for the hooks run in it (Claude Code's project
 * settings), and the server inherits the environment of the hook that started it. Nothing in a
 * repository, a recall.toml or a hook call can reach it.
 */
import path from 'node:path';

let stallUnder: string | null = null;

/** Turn the seam on for DIR (an absolute path), or off (null). See the head of this file. */
export function stallReadsUnder(dir: string | null): void {
  stallUnder = dir && path.isAbsolute(dir) ? path.resolve(dir) : null;
}

/** Blocks this thread forever when the seam is on and `file` is under its folder; else returns at once. */
export function stallPoint(file: string): void {
  if (stallUnder === null) return;
  const abs = path.resolve(file);
  if (abs !== stallUnder && !abs.startsWith(stallUnder + path.sep)) return;
  // Nobody ever notifies this word: the thread waits as one stuck in the kernel does.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
