/**
 * Readers of an index without WAL (the WebAssembly SQLite driver keeps a rollback journal, so a
 * reader waits while a write transaction is open). Such readers announce themselves, and a long
 * refresh leaves them gaps between its batches.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mkdirPrivate } from '../../io/private-fs.js';

/** Longest a refresh without a deadline waits for other readers after one batch, and its polling step. */
const NO_WAL_YIELD_MAX_MS = 2000;
const NO_WAL_YIELD_STEP_MS = 20;

/**
 * Processes that have a no-WAL index open say so with an empty file named by their pid in
 * `<index>.readers/`, so that a long refresh leaves them gaps (NO_WAL_PAUSE_MS). A file whose
 * process is gone is removed by the next writer that looks.
 */
const readersDir = (file: string): string => `${file}.readers`;

export function announceReader(file: string): void {
  try {
    mkdirPrivate(readersDir(file));
    fs.writeFileSync(path.join(readersDir(file), String(process.pid)), '', { mode: 0o600 });
  } catch {
    /* best effort: without it a reader may wait for a batch, then use an in-memory index */
  }
}

export function withdrawReader(file: string): void {
  try {
    fs.rmSync(path.join(readersDir(file), String(process.pid)), { force: true });
  } catch {
    /* already gone */
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether another live process has announced it reads this index. */
function otherReaders(file: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(readersDir(file));
  } catch {
    return false;
  }
  let any = false;
  for (const name of names) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) any = true;
    else fs.rmSync(path.join(readersDir(file), name), { force: true });
  }
  return any;
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** Between two batches of a no-WAL refresh: leave the index to other readers while there are any. */
export function yieldToReaders(file: string): void {
  const until = Date.now() + NO_WAL_YIELD_MAX_MS;
  // The refresh is synchronous: block the thread (its lock is free meanwhile).
  while (Date.now() < until && otherReaders(file)) Atomics.wait(pauseCell, 0, 0, NO_WAL_YIELD_STEP_MS);
}
