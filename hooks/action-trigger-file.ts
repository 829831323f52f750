/**
 * One KB's trigger file as a build uses it (the format is action-trigger-store.ts): read once per
 * process, written whole when a build finished, and, by a build bound by a deadline that cannot
 * finish, added to a frame at a time, so that calls answered in their own process (no recall server,
 * or none yet) make progress on a KB too large to derive in one call.
 *
 * This process remembers each file as it last read or wrote it (size and time): a part is added only
 * to a file no other process replaced since (a recall server that wrote the whole KB holds more).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../core/errors.js';
import type { NoteTriggers } from '../operators/action/index.js';
import { buildStamp } from '../sources/recall-server/index.js';
import {
  appendStoredTriggers,
  decodeFrame,
  encodeTriggers,
  encodeTriggersNow,
  openStoredTriggers,
  TRIGGER_SHAPE,
  writeStoredTriggers,
  type StoredEntry,
} from './action-trigger-store.js';

/**
 * This build of recall (the build-id file of the bundle this code runs from), read when this module
 * loads, with the code it names: what a trigger file is written by and read for (read later, an
 * upgrade in place could stamp the old code's triggers with the new build). Null when run unbundled
 * (specs, `npm run eval` on the compiled sources): then nothing is kept on disk, as no build can say
 * the triggers are its own.
 */
export const OWN_BUILD = buildStamp(fileURLToPath(import.meta.url));

/** Files read by this process (each once; what it held is remembered since). */
const READ = new Set<string>();
/** Files that held every note of their KB when last read or written whole by this process. */
const CURRENT = new Set<string>();
/** Each file's size and time as this process last read or wrote it ('' when there was none). */
const SEEN = new Map<string, string>();
/** Files this process wrote or found to be of its build, with a header: a part is added to them. */
const OURS = new Set<string>();
/** The latest whole write begun per file: an older one still encoding gives way. */
const WRITES = new Map<string, number>();
let writes = 0;

const stamped = (file: string): string => {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
};

/** Whether the file held every note of its KB when this process last saw it (then nothing need be written). */
export const isCurrent = (file: string): boolean => CURRENT.has(file);

/** Forget a file this process found broken (its entries failed at use): it is removed, to be written again. */
export function dropFile(file: string): void {
  CURRENT.delete(file);
  OURS.delete(file);
  fs.rmSync(file, { force: true });
  SEEN.set(file, '');
}

/**
 * The file's entries handed to `remember`, frame by frame, the first time this process builds for
 * it; `tick()` between frames (it yields, or throws at a stop time). Problems go to `warn`.
 */
export async function readOnce(
  file: string,
  stamp: string,
  remember: (key: string, t: NoteTriggers) => void,
  tick: () => Promise<void>,
  warn: (line: string) => void,
): Promise<void> {
  if (READ.has(file)) return;
  READ.add(file);
  SEEN.set(file, stamped(file));
  const { frames, problem, whole, ours } = openStoredTriggers(file, stamp);
  if (problem) warn(problem);
  if (ours) OURS.add(file);
  try {
    for (const frame of frames) {
      for (const [k, t] of decodeFrame(frame, TRIGGER_SHAPE)) remember(k, t);
      await tick();
    }
    if (whole && frames.length > 0) CURRENT.add(file);
  } catch (err) {
    OURS.delete(file);
    if (err instanceof Error && err.name === 'TriggersLate') throw err;
    warn(`${file}: unreadable (${errorMessage(err)}); derived again`);
  }
}

/**
 * Add entries a stopped build derived: to the end of a file of this build that no other process
 * replaced since this one saw it, else as a new file when there is none of this build. Small (what
 * one call derives), so it fits in what is left of the call.
 */
export function addPart(file: string, stamp: string, entries: readonly StoredEntry[], warn: (line: string) => void): void {
  if (entries.length === 0 || stamped(file) !== SEEN.get(file)) return;
  const problem = OURS.has(file) ? appendStoredTriggers(file, entries) : writeStoredTriggers(file, encodeTriggersNow(stamp, entries));
  if (problem) return warn(problem);
  OURS.add(file);
  CURRENT.delete(file);
  SEEN.set(file, stamped(file));
}

/**
 * Write every entry of the KB, encoded a frame at a time between `tick()`s: in the recall server it
 * yields to other calls; where the process ends with its call, the write is given up (nothing
 * written, a line to `warn`) once the stop time passed. A newer whole write of the same file begun
 * meanwhile wins: this one gives way.
 */
export async function writeWhole(
  file: string,
  stamp: string,
  entries: readonly StoredEntry[],
  tick: () => Promise<void>,
  warn: (line: string) => void,
): Promise<void> {
  const mine = (writes += 1);
  WRITES.set(file, mine);
  let bytes: Buffer;
  try {
    bytes = await encodeTriggers(stamp, entries, tick);
  } catch (err) {
    const late = err instanceof Error && err.name === 'TriggersLate';
    warn(`${file}: triggers not kept (${late ? 'the deadline came first' : errorMessage(err)})`);
    return;
  }
  if (WRITES.get(file) !== mine) return;
  const problem = writeStoredTriggers(file, bytes);
  if (problem) return warn(problem);
  CURRENT.add(file);
  OURS.add(file);
  SEEN.set(file, stamped(file));
}
