/**
 * Lookup in a text table of sorted `key\tvalue` lines (build outputs under dist/data): a binary
 * search over the string itself, so a process reading one or two keys never splits or parses the
 * whole file. Keys are compared as JavaScript strings compare (the order Array.prototype.sort gives).
 */
import fs from 'node:fs';
import path from 'node:path';
export interface SortedTable {
  get(key: string): string | null;
}

/** What the binary search reads of a table: its length, where a line starts and a character is, and a slice. */
interface TableText {
  size: number;
  lineStart(i: number): number;
  find(char: string, from: number): number;
  text(from: number, to: number): string;
}

/** The value of `key` in sorted `key\tvalue` lines, by binary search over their text; null when absent. */
function lookup(t: TableText, key: string): string | null {
  let lo = 0;
  let hi = t.size;
  while (lo < hi) {
    const start = t.lineStart((lo + hi) >>> 1);
    const tab = t.find('\t', start);
    let end = t.find('\n', start);
    if (end < 0) end = t.size;
    if (tab < 0 || tab > end) return null;
    const k = t.text(start, tab);
    if (k === key) return t.text(tab + 1, end);
    if (k < key) lo = end + 1;
    else hi = start;
  }
  return null;
}

/** Answers a table keeps (found or not): the words of one KB and its prompts, in a long-lived process. */
const KEPT_ANSWERS = 20_000;
/** Longest key whose answer is kept: longer than any word of the tables. */
const MAX_KEPT_KEY = 64;

/**
 * `get` with its answers kept: the recall server looks up the same few thousand words for every
 * prompt, and each binary search reads a dozen lines. Past KEPT_ANSWERS the oldest half is let go.
 */
function keepingAnswers(get: (key: string) => string | null | undefined): SortedTable {
  const kept = new Map<string, string | null>();
  return {
    get(key) {
      // A key longer than any word is looked up, not kept (a prompt may hold one of 100,000 characters).
      if (key.length > MAX_KEPT_KEY) return get(key) ?? null;
      const hit = kept.get(key);
      if (hit !== undefined) return hit;
      const value = get(key);
      // undefined: the lookup failed (a read error), found nothing this time and is not kept.
      if (value === undefined) return null;
      if (kept.size >= KEPT_ANSWERS) for (const k of [...kept.keys()].slice(0, KEPT_ANSWERS / 2)) kept.delete(k);
      kept.set(key, value);
      return value;
    },
  };
}

export function sortedTable(body: string): SortedTable {
  const t: TableText = {
    size: body.length,
    lineStart: (i) => body.lastIndexOf('\n', i - 1) + 1,
    find: (char, from) => body.indexOf(char, from),
    text: (from, to) => body.slice(from, to),
  };
  return keepingAnswers((key) => lookup(t, key));
}

/**
 * Where a build-output data file is: `dist/data/<name>` seen from the bundle (dist/bundle) or the
 * compiled modules (dist/sources/query), or from this source folder when running from source (tests).
 */
export function dataFileCandidates(moduleDir: string, name: string): string[] {
  return [
    path.join(moduleDir, '..', 'data', name),
    path.join(moduleDir, '..', '..', 'data', name),
    path.join(moduleDir, '..', '..', 'dist', 'data', name),
  ];
}

/** The first readable candidate's text, or null. */
export function readDataFile(moduleDir: string, name: string): string | null {
  for (const file of dataFileCandidates(moduleDir, name)) {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      /* try the next place */
    }
  }
  return null;
}

/** Bytes read from a table file at a time, and kept for the next lookup. */
const CHUNK = 4096;
const NEWLINE = 0x0a;

/**
 * The same lookup over a table file read in chunks, as a lookup needs them, not decoded whole: a
 * process that answers one prompt looks up a few dozen words of a 2.4 MB table, and reading and
 * decoding all of it cost about 30 ms per hook. Chunks read stay cached (a long-lived process ends up
 * holding the file it uses). A read that fails mid-lookup finds nothing. The file is UTF-8 (WordNet's
 * lemmas are ASCII): its bytes sort as its strings do, but for characters past U+FFFF.
 */
export function fileTable(file: string): SortedTable | null {
  let fd: number;
  let size: number;
  try {
    fd = fs.openSync(file, 'r');
    size = fs.fstatSync(fd).size;
  } catch {
    return null;
  }
  const { byteAt, text } = chunkReader(fd, size);
  const t: TableText = {
    size,
    lineStart: (i) => {
      for (let j = i - 1; j >= 0; j -= 1) if (byteAt(j) === NEWLINE) return j + 1;
      return 0;
    },
    find: (char, from) => {
      const byte = char.charCodeAt(0);
      for (let i = from; i < size; i += 1) if (byteAt(i) === byte) return i;
      return -1;
    },
    text,
  };
  return keepingAnswers((key) => {
    try {
      return lookup(t, key);
    } catch {
      return undefined;
    }
  });
}

/** Bytes and UTF-8 text of an open file, read CHUNK bytes at a time and kept. */
function chunkReader(fd: number, size: number): { byteAt: (i: number) => number; text: (from: number, to: number) => string } {
  const chunks = new Map<number, Buffer>();
  const chunkOf = (n: number): Buffer => {
    let c = chunks.get(n);
    if (!c) {
      c = Buffer.alloc(Math.min(CHUNK, size - n * CHUNK));
      fs.readSync(fd, c, 0, c.length, n * CHUNK);
      chunks.set(n, c);
    }
    return c;
  };
  return {
    byteAt: (i) => chunkOf(Math.floor(i / CHUNK))[i % CHUNK]!,
    text: (from, to) => {
      const parts: Buffer[] = [];
      for (let i = from; i < to;) {
        const n = Math.floor(i / CHUNK);
        const end = Math.min(to, (n + 1) * CHUNK);
        parts.push(chunkOf(n).subarray(i % CHUNK, (i % CHUNK) + (end - i)));
        i = end;
      }
      return Buffer.concat(parts).toString('utf8');
    },
  };
}

/** The first openable candidate (dataFileCandidates) as a file-backed table, or null. */
export function openDataTable(moduleDir: string, name: string): SortedTable | null {
  for (const file of dataFileCandidates(moduleDir, name)) {
    const t = fileTable(file);
    if (t) return t;
  }
  return null;
}
