/**
 * The tool-call hook's note triggers kept on disk, next to the KB's index, so that a process that
 * starts cold (the first hooks of a session run in their own process until the recall server is up;
 * a server that restarted) reads them instead of deriving them again. Deriving is most of a cold
 * tool-call hook: about 150 ms for 30 notes in a fresh process, seconds for 10,000; reading them
 * back takes a few milliseconds.
 *
 * The file holds each note's triggers by its key and content hash, written with node's structured
 * serializer (v8), which keeps the Sets and regular expressions triggers are made of. It is only
 * trusted from the build of recall that wrote it and the same V8: another build may derive other
 * triggers from the same note, and another V8 may not read the format. Anything else (a missing, torn,
 * oversized or foreign file) reads as no file, and the triggers are derived as before.
 */
import { types } from 'node:util';
import v8 from 'node:v8';
import { readSmallBytes, writeFileAtomic } from '../io/atomic-write.js';
import { errorMessage } from '../core/errors.js';
import type { NoteTriggers } from '../operators/action/index.js';

/** Changes whenever the layout of this file changes. */
const FORMAT = 1;
/** Largest file read or written (a 10,000-note KB's triggers take about 40 MB). */
const MAX_BYTES = 96 * 1024 * 1024;

interface Stored {
  format: number;
  build: string;
  v8: string;
  entries: [string, NoteTriggers][];
}

/** The triggers file of an index file. */
export const triggerFileOf = (indexFile: string): string => `${indexFile}.triggers`;

/** Whether a read value has the shape this module writes (a file of an older format, or torn, does not). */
function isStored(v: unknown): v is Stored {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<Stored>;
  return (
    s.format === FORMAT &&
    typeof s.build === 'string' &&
    s.v8 === process.versions.v8 &&
    Array.isArray(s.entries) &&
    s.entries.every((e) => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1]?.id === 'string' && types.isSet(e[1].stems))
  );
}

/**
 * The stored triggers by memo key (`key\0contentHash`) for this build; empty when there is no file,
 * it is of another build, or it cannot be read (then `problem` says why, for the hook's log).
 */
export function readStoredTriggers(file: string, build: string): { entries: Map<string, NoteTriggers>; problem?: string } {
  const bytes = readSmallBytes(file, MAX_BYTES);
  if (bytes === null) return { entries: new Map<string, NoteTriggers>() };
  try {
    const v: unknown = v8.deserialize(bytes);
    if (!isStored(v))
      return { entries: new Map<string, NoteTriggers>(), problem: `${file}: not a trigger file of this format; derived again` };
    return { entries: new Map<string, NoteTriggers>(v.build === build ? v.entries : []) };
  } catch (err) {
    return { entries: new Map<string, NoteTriggers>(), problem: `${file}: unreadable (${errorMessage(err)}); derived again` };
  }
}

/** Write the triggers of a KB's notes for this build (replacing the file at once); a problem for the hook's log, or null. */
export function writeStoredTriggers(file: string, build: string, entries: Iterable<[string, NoteTriggers]>): string | null {
  try {
    const stored: Stored = { format: FORMAT, build, v8: process.versions.v8, entries: [...entries] };
    const bytes = v8.serialize(stored);
    if (bytes.length > MAX_BYTES) return `${file}: triggers not kept, ${bytes.length} bytes is more than ${MAX_BYTES}`;
    writeFileAtomic(file, bytes);
    return null;
  } catch (err) {
    return `${file}: triggers not kept (${errorMessage(err)})`;
  }
}
