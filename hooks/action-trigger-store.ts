/**
 * The tool-call hook's note triggers kept on disk, next to the KB's index, so that a process that
 * starts cold (the first hooks of a session run in their own process until the recall server is up;
 * a server that restarted) reads them instead of deriving them again. Deriving is most of a cold
 * tool-call hook: about 150 ms for 30 notes in a fresh process, seconds for 10,000; reading them
 * back takes a few milliseconds.
 *
 * The file holds each note's triggers by its key and content hash, written with node's structured
 * serializer (v8), which keeps the Sets and regular expressions triggers are made of, in frames a
 * reader decodes one at a time. It is only
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
const FORMAT = 2;
/** Largest file read or written (a 10,000-note KB's triggers take about 40 MB). */
const MAX_BYTES = 96 * 1024 * 1024;
/** Notes per frame: a reader decodes one frame at a time (a few ms each) and may stop between two. */
const FRAME_NOTES = 200;

/**
 * The file is a run of frames, each a 4-byte big-endian length and a value of node's serializer: a
 * header first, then the entries, FRAME_NOTES at a time (so a reader bound by a deadline never
 * blocks for the whole file at once).
 */
interface Header {
  format: number;
  build: string;
  v8: string;
}
export type StoredEntry = [string, NoteTriggers];

/** The triggers file of an index file. */
export const triggerFileOf = (indexFile: string): string => `${indexFile}.triggers`;

function isHeader(v: unknown): v is Header {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Partial<Header>;
  return h.format === FORMAT && typeof h.build === 'string' && h.v8 === process.versions.v8;
}

/** Whether a decoded frame holds entries as this module writes them (Sets of the serializer's realm: util.types). */
function isEntries(v: unknown): v is StoredEntry[] {
  return (
    Array.isArray(v) &&
    v.every(
      (e) =>
        Array.isArray(e) &&
        typeof e[0] === 'string' &&
        typeof (e[1] as NoteTriggers | undefined)?.id === 'string' &&
        types.isSet((e[1] as NoteTriggers).stems),
    )
  );
}

/** The frames of a file's bytes; throws where a length runs past the end. */
function framesOf(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + 4 > bytes.length) throw new Error('torn frame header');
    const len = bytes.readUInt32BE(at);
    if (at + 4 + len > bytes.length) throw new Error('torn frame');
    out.push(bytes.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

/**
 * What a trigger file holds for this build, not yet decoded: one `decode()` per frame of entries.
 * None when there is no file or it is of another build; none, with the reason (for the hook's log),
 * when it cannot be read.
 */
export function openStoredTriggers(file: string, build: string): { frames: Buffer[]; problem?: string } {
  const bytes = readSmallBytes(file, MAX_BYTES);
  if (bytes === null) return { frames: [] };
  try {
    const [head, ...frames] = framesOf(bytes);
    const h: unknown = head ? v8.deserialize(head) : null;
    if (!isHeader(h)) return { frames: [], problem: `${file}: not a trigger file of this format; derived again` };
    return { frames: h.build === build ? frames : [] };
  } catch (err) {
    return { frames: [], problem: `${file}: unreadable (${errorMessage(err)}); derived again` };
  }
}

/** The entries of one frame; throws on a frame this module did not write. */
export function decodeFrame(frame: Buffer): StoredEntry[] {
  const v: unknown = v8.deserialize(frame);
  if (!isEntries(v)) throw new Error('not a frame of trigger entries');
  return v;
}

/** Every entry a file holds for this build, at once (see openStoredTriggers). */
export function readStoredTriggers(file: string, build: string): { entries: Map<string, NoteTriggers>; problem?: string } {
  const { frames, problem } = openStoredTriggers(file, build);
  const entries = new Map<string, NoteTriggers>();
  try {
    for (const f of frames) for (const [k, t] of decodeFrame(f)) entries.set(k, t);
  } catch (err) {
    return { entries, problem: `${file}: unreadable (${errorMessage(err)}); derived again` };
  }
  return problem ? { entries, problem } : { entries };
}

/** Write the triggers of a KB's notes for this build (replacing the file at once); a problem for the hook's log, or null. */
export function writeStoredTriggers(file: string, build: string, entries: readonly StoredEntry[]): string | null {
  try {
    const values: unknown[] = [{ format: FORMAT, build, v8: process.versions.v8 } satisfies Header];
    for (let i = 0; i < entries.length; i += FRAME_NOTES) values.push(entries.slice(i, i + FRAME_NOTES));
    const parts: Buffer[] = [];
    let size = 0;
    for (const v of values) {
      const body = v8.serialize(v);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(body.length);
      parts.push(len, body);
      size += 4 + body.length;
      if (size > MAX_BYTES) return `${file}: triggers not kept, more than ${MAX_BYTES} bytes`;
    }
    writeFileAtomic(file, Buffer.concat(parts, size));
    return null;
  } catch (err) {
    return `${file}: triggers not kept (${errorMessage(err)})`;
  }
}
