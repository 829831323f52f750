/**
 * A test seam, and nothing else: the stall of a file system that stops answering (a hung NFS or
 * FUSE mount, a dying disk), which a test cannot otherwise make without mounting one.
 *
 * RECALL_TEST_STALL_READS names a folder. Every read recall makes of a project's files through
 * stallPoint() (the `.git` files, a transcript) blocks its thread for good when the file is under
 * that folder, as a read(2) on a hung mount does: not an error, not a timeout, no answer at all.
 *
 * It is read once, from this process's own environment when the module loads: never from a
 * recall.toml, a repository's files or a hook call's environment (the recall server does not look
 * at the variables a caller sends for it), so nothing a repository holds can turn it on. Nobody
 * sets it outside the specs that reproduce a stalled project (spec/hostile/stalled-reads).
 */
import path from 'node:path';

const STALL_UNDER = ((): string | null => {
  const v = process.env['RECALL_TEST_STALL_READS'];
  return v && path.isAbsolute(v) ? path.resolve(v) : null;
})();

/** Blocks this thread forever when `file` is under RECALL_TEST_STALL_READS (see the head of this file); else returns at once. */
export function stallPoint(file: string): void {
  if (STALL_UNDER === null) return;
  const abs = path.resolve(file);
  if (abs !== STALL_UNDER && !abs.startsWith(STALL_UNDER + path.sep)) return;
  // Nobody ever notifies this word: the thread waits as one stuck in the kernel does.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
