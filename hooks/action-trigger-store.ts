/**
 * The tool-call hook's note triggers kept on disk, next to the KB's index, so that a process that
 * starts cold (the first hooks of a session run in their own process until the recall server is up;
 * a server that restarted) reads them instead of deriving them again. Deriving is most of a cold
 * tool-call hook: about 150 ms for 30 notes in a fresh process, seconds for 10,000; reading them
 * back takes a few milliseconds.
 *
 * The file holds each note's triggers by its key and content hash, written with node's structured
 * serializer (v8), which keeps the Sets and regular expressions triggers are made of, in frames a
 * reader decodes one at a time. It is only trusted from the build of recall that wrote it and the
 * same V8: another build may derive other triggers from the same note, and another V8 may not read
 * the format. A file that is missing or of another build reads as none; one that cannot be read
 * (torn, oversized, not a regular file, frames of another shape) reads as none with the reason, for
 * the hook's log. Either way the triggers are derived as before and the file written again.
 *
 * The file sits in the user's own state dir (0700), as trusted as the index beside it; the checks
 * here bound what a damaged one can cost a hook (each frame's size, every field's kind).
 */
import fs from 'node:fs';
import path from 'node:path';
import { types } from 'node:util';
import v8 from 'node:v8';
import { readSmallBytes, writeFileAtomic } from '../io/atomic-write.js';
import { errorMessage } from '../core/errors.js';
import type { NoteTriggers } from '../operators/action/index.js';

/** Changes whenever the layout of this file changes. */
const FORMAT = 3;
/** Largest file read or written (a 10,000-note KB's triggers take about 40 MB). */
const MAX_BYTES = 96 * 1024 * 1024;
/** Notes per frame: a reader decodes one frame at a time (a few ms each) and may stop between two. */
const FRAME_NOTES = 200;
/** Largest frame decoded: the header is a few dozen bytes, 200 notes' triggers about a megabyte. */
const MAX_HEADER_BYTES = 4096;
const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** A temp file of a write this old was left by a process that ended mid-write (a hook at its deadline). */
const STALE_TEMP_MS = 10 * 60_000;

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

/** What kind of value each field of a note's triggers is, as node's serializer gives it back. */
export type TriggerShape = ReadonlyMap<string, string>;

const kindOf = (v: unknown): string =>
  types.isSet(v) ? 'set' : types.isRegExp(v) ? 'regexp' : Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;

/** The shape of a note's triggers as they are (a spec holds TRIGGER_SHAPE to what noteTriggers gives). */
export function shapeOf(t: NoteTriggers): TriggerShape {
  return new Map(Object.entries(t).map(([k, v]) => [k, kindOf(v)]));
}

/**
 * What every stored entry must have: each field of NoteTriggers and its kind ('null' for an object
 * or null: `work`, `commitFormat`). Written out, not taken from a note derived for the purpose, so
 * a process that starts cold checks a file without deriving anything; a field added to NoteTriggers
 * and not here fails to compile.
 */
const FIELDS = {
  id: 'string',
  commands: 'array',
  globs: 'array',
  placeGlobs: 'array',
  applyCommands: 'array',
  gitSteps: 'set',
  commitFormat: 'null',
  work: 'null',
  values: 'set',
  exemptCommands: 'array',
  exemptPlaces: 'array',
  phrases: 'array',
  compounds: 'set',
  focusCompounds: 'set',
  stems: 'set',
  variables: 'set',
  codeVariables: 'set',
  fileTypes: 'set',
  wordPairs: 'set',
  retired: 'set',
  setAside: 'set',
  pairs: 'set',
  programs: 'set',
  recommends: 'array',
  recommendedFlags: 'set',
  followFlags: 'array',
  namedSpans: 'set',
  namedFlags: 'set',
  otherPhrases: 'array',
  warnedPhrases: 'array',
  followTokens: 'set',
  followSettings: 'set',
} as const satisfies Record<keyof NoteTriggers, string>;
export const TRIGGER_SHAPE: TriggerShape = new Map(Object.entries(FIELDS));

function fits(shape: TriggerShape, v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const fields = Object.entries(v);
  if (fields.length !== shape.size) return false;
  return fields.every(([k, x]) => {
    const want = shape.get(k);
    const got = kindOf(x);
    return want === got || (want === 'null' && got === 'object');
  });
}

/** The triggers file of an index file. */
export const triggerFileOf = (indexFile: string): string => `${indexFile}.triggers`;

function isHeader(v: unknown): v is Header {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Partial<Header>;
  return h.format === FORMAT && typeof h.build === 'string' && h.v8 === process.versions.v8;
}

/**
 * The frames of a file's bytes, and whether its last one was cut short (a process that ended while
 * adding a part: the frames before it stand); throws where a length runs past its bound.
 */
function framesOf(bytes: Buffer): { frames: Buffer[]; torn: boolean } {
  const frames: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + 4 > bytes.length) return { frames, torn: true };
    const len = bytes.readUInt32BE(at);
    if (len > (frames.length === 0 ? MAX_HEADER_BYTES : MAX_FRAME_BYTES)) throw new Error(`a frame of ${len} bytes`);
    if (at + 4 + len > bytes.length) return { frames, torn: true };
    frames.push(bytes.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return { frames, torn: false };
}

/** Why a file at this path is not read as a trigger file (a folder, a FIFO, too large), or null (none there, or a regular file). */
function unusable(file: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  if (!st.isFile()) return 'not a regular file';
  return st.size > MAX_BYTES ? `${st.size} bytes, more than ${MAX_BYTES}` : null;
}

/**
 * What a trigger file holds for this build, not yet decoded: the frames of entries (decodeFrame
 * each); `ours`: it is a file of this build (a part may be added to it); `whole`: no frame of it
 * was cut short. None when there is no file or it is of another build; none, with the reason (for
 * the hook's log), when it cannot be read.
 */
export function openStoredTriggers(file: string, build: string): { frames: Buffer[]; problem?: string; ours?: boolean; whole?: boolean } {
  const why = unusable(file);
  if (why) return { frames: [], problem: `${file}: ${why}; derived again` };
  const bytes = readSmallBytes(file, MAX_BYTES);
  if (bytes === null) return { frames: [] };
  try {
    const {
      frames: [head, ...frames],
      torn,
    } = framesOf(bytes);
    const h: unknown = head ? v8.deserialize(head) : null;
    if (!isHeader(h)) return { frames: [], problem: `${file}: not a trigger file of this format; derived again` };
    return h.build === build ? { frames, ours: true, whole: !torn } : { frames: [] };
  } catch (err) {
    return { frames: [], problem: `${file}: unreadable (${errorMessage(err)}); derived again` };
  }
}

/** The entries of one frame, each of the shape of freshly derived triggers; throws on any other frame. */
export function decodeFrame(frame: Buffer, shape: TriggerShape): StoredEntry[] {
  const v: unknown = v8.deserialize(frame);
  if (!Array.isArray(v) || !v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && fits(shape, e[1])))
    throw new Error('a frame that is not trigger entries of this build');
  return v as StoredEntry[];
}

/** Every entry a file holds for this build, at once (see openStoredTriggers). */
export function readStoredTriggers(
  file: string,
  build: string,
  shape: TriggerShape,
): { entries: Map<string, NoteTriggers>; problem?: string } {
  const { frames, problem } = openStoredTriggers(file, build);
  const entries = new Map<string, NoteTriggers>();
  try {
    for (const f of frames) for (const [k, t] of decodeFrame(f, shape)) entries.set(k, t);
  } catch (err) {
    return { entries, problem: `${file}: unreadable (${errorMessage(err)}); derived again` };
  }
  return problem ? { entries, problem } : { entries };
}

/** One frame: its length, then the value as node's serializer writes it. */
function frame(v: unknown): Buffer {
  const body = v8.serialize(v);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

const headerFrame = (build: string): Buffer => frame({ format: FORMAT, build, v8: process.versions.v8 } satisfies Header);

/** The frames of these entries, FRAME_NOTES at a time. */
function* entryFrames(entries: readonly StoredEntry[]): Generator<Buffer> {
  for (let i = 0; i < entries.length; i += FRAME_NOTES) yield frame(entries.slice(i, i + FRAME_NOTES));
}

/**
 * The bytes of a trigger file for these entries, a frame at a time with `between()` after each (it
 * yields to the event loop, or throws to give the write up at a deadline).
 */
export async function encodeTriggers(build: string, entries: readonly StoredEntry[], between: () => Promise<void>): Promise<Buffer> {
  const parts = [headerFrame(build)];
  let size = parts[0]!.length;
  for (const f of entryFrames(entries)) {
    parts.push(f);
    size += f.length;
    if (size > MAX_BYTES) throw new Error(`more than ${MAX_BYTES} bytes`);
    await between();
  }
  return Buffer.concat(parts, size);
}

/** The same at once, for a few entries (a part one call derived). */
export function encodeTriggersNow(build: string, entries: readonly StoredEntry[]): Buffer {
  return Buffer.concat([headerFrame(build), ...entryFrames(entries)]);
}

/**
 * Add entries to the end of a trigger file of this build, in one write to a regular file only (no
 * link followed, never blocking on a FIFO); a problem for the hook's log, or null. A process killed
 * mid-write leaves a last frame cut short, which readers pass over.
 */
export function appendStoredTriggers(file: string, entries: readonly StoredEntry[]): string | null {
  const bytes = Buffer.concat([...entryFrames(entries)]);
  const { O_WRONLY, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size + bytes.length > MAX_BYTES) return `${file}: part not added (not a regular file, or too large)`;
    fs.writeSync(fd, bytes);
    return null;
  } catch (err) {
    return `${file}: part not added (${errorMessage(err)})`;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * Replace the file with these bytes at once (owner-only), and remove what writes that never
 * finished left beside it; a problem for the hook's log, or null.
 */
export function writeStoredTriggers(file: string, bytes: Buffer): string | null {
  try {
    writeFileAtomic(file, bytes);
  } catch (err) {
    return `${file}: triggers not kept (${errorMessage(err)})`;
  }
  sweepTemps(file);
  return null;
}

function sweepTemps(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  try {
    for (const name of fs.readdirSync(dir)) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      if (st.isFile() && Date.now() - st.mtimeMs > STALE_TEMP_MS) fs.rmSync(p, { force: true });
    }
  } catch {
    /* a later write sweeps again */
  }
}
