/**
 * Words and stems the way the full-text index sees them, for the relevance estimate. Pure.
 *
 * The index tokenizes with SQLite FTS5's `porter unicode61`: runs of letters and digits, lower-cased,
 * diacritics removed, then the Porter stemmer. The same steps here (the `stemmer` package implements
 * the same Porter algorithm; checked on the 20,000 most frequent English words, every stem it makes
 * is a term of an FTS5 porter index of those words) let a query term be matched against a note's text
 * and looked up in the index's vocabulary.
 */
import { repositoryPath } from './query-paths.js';
import { stemmer } from 'stemmer';
import { STOPWORDS } from './terms.js';

const WORD_RE = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /^[a-z]+$/;

/**
 * Lower-case, strip the diacritics of Latin letters ("café" → "cafe"), as the index's unicode61
 * tokenizer does; other scripts keep their marks (й stays й, デ stays デ), as they do in the index.
 */
export function fold(word: string): string {
  const lower = word.toLowerCase();
  // Only non-ASCII words need the (slower) normalisation.
  return /^[\x00-\x7f]*$/.test(lower)
    ? lower
    : lower
        .normalize('NFD')
        .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
        .normalize('NFC');
}

/** Stems already computed in this process: notes repeat their vocabulary, and Porter is the cost. */
const STEM_CACHE = new Map<string, string>();
/** Bound on the cache (a long-lived process reading many KBs must not grow without limit). */
const STEM_CACHE_MAX = 100_000;

/** Porter stem of a folded word; digits and non-Latin words stay as they are (Porter is for English). */
export function stemOf(folded: string): string {
  const hit = STEM_CACHE.get(folded);
  if (hit !== undefined) return hit;
  const stem = ASCII_WORD.test(folded) ? stemmer(folded) : folded;
  if (STEM_CACHE.size >= STEM_CACHE_MAX) STEM_CACHE.clear();
  STEM_CACHE.set(folded, stem);
  return stem;
}

/**
 * Distinct stems of a text, reading at most `maxChars` characters (a 1 MiB note should not cost a
 * recall a second of tokenizing; titles, key insights and the start of the body come first).
 */
export function textStems(text: string, maxChars = Infinity): Set<string> {
  const out = new Set<string>();
  const src = (text.length > maxChars ? text.slice(0, maxChars) : text).toLowerCase();
  // Most notes are plain ASCII: splitting on non-alphanumerics is several times faster than the
  // Unicode word pattern (this runs in every hook process, before the JIT has warmed up).
  if (/^[\x00-\x7f]*$/.test(src)) {
    for (const w of src.split(/[^a-z0-9]+/)) if (w) out.add(stemOf(w));
    return out;
  }
  for (const m of src.matchAll(WORD_RE)) out.add(stemOf(fold(m[0])));
  return out;
}

export interface QueryTerm {
  /** The word as folded (lower case, no diacritics). */
  word: string;
  stem: string;
  /**
   * Capitalised inside a sentence ("did Melanie go", "on Postgres"): a name. Names are specific
   * whatever their frequency in everyday English ("Maria", "Tim" are common words there).
   */
  proper: boolean;
  /**
   * For a camelCase or PascalCase identifier ("tenantCfg", "ParseTenantHeader"), its leading words
   * as a note would stem them ("tenant"; "pars", "parse", "parsetenant"): the identifier is one named
   * thing, and a note about tenants does not contain it the way "auth" stands for "authenticate".
   * Absent for other words.
   */
  components?: string[];
  /**
   * For a word the query uses only inside file paths ("internal/ingest/v2"), the number of content
   * words of the shortest such path: a path names where the work is, one place, and its words
   * together weigh as one word (operators/weigh-terms.ts). Absent for words used outside a path.
   */
  pathWords?: number;
}

/** A stretch of the query that is a file path, and how many distinct content words it has. */
interface PathSpan {
  start: number;
  end: number;
  words: number;
}

/**
 * The repository paths of a prompt: tokens (split at spaces, quotes and brackets) that join two or
 * more distinct content words with `/` and start like a relative path ("internal/auth",
 * "./scripts/x.sh", "src/gen/x.ts"). An absolute path, a URL or socket (`unix:///var/run/…`), an
 * endpoint (`/v1/events`), an image tag (`host/dev/ingestd:tag`) or a scoped package (`@rollup/…`)
 * is the thing the prompt is about, not the folder the work is in. One pass over the text, no
 * backtracking: a prompt may be megabytes long.
 */
function pathSpans(query: string): PathSpan[] {
  const out: PathSpan[] = [];
  for (const m of query.matchAll(/[^\s`'"()<>[\]{},;|]+/g)) {
    const token = repositoryPath(m[0]);
    if (token === null) continue;
    const stems = new Set<string>();
    for (const w of token.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = fold(w[0]);
      if (word.length >= MIN_TERM_CHARS && !STOPWORDS.has(word)) stems.add(stemOf(word));
    }
    if (stems.size >= 2) out.push({ start: m.index, end: m.index + token.length, words: stems.size });
  }
  return out;
}

/**
 * Longest leading word of an identifier that QueryTerm.components holds: the longest prefix the
 * relevance estimate ever tries as an abbreviation (operators/math/relevance.ts
 * MAX_ABBREVIATION_CHARS). Longer ones would never be looked at, and a pasted 20,000-character
 * identifier would otherwise give 10,000 of them (3.5 s of stemming on the hook's path).
 */
export const MAX_COMPONENT_CHARS = 16;

/** The leading words of a camelCase identifier, folded and stemmed (see QueryTerm.components). */
function camelComponents(raw: string): string[] | undefined {
  const out = new Set<string>();
  for (const m of raw.slice(0, MAX_COMPONENT_CHARS + 1).matchAll(/\p{Ll}(?=\p{Lu})/gu)) {
    const head = fold(raw.slice(0, m.index + 1));
    out.add(head);
    out.add(stemOf(head));
  }
  return out.size ? [...out] : undefined;
}

/** Shortest query word that counts: 2 characters keeps "s3", "ci", "db", "ui". */
export const MIN_TERM_CHARS = 2;
/** A prompt carries at most this many distinct terms into the estimate (a pasted log is not a topic). */
export const MAX_QUERY_TERMS = 64;

/**
 * The query's content terms: distinct stems of its words of 2+ characters that are not function
 * words, in order, each flagged when it is a capitalised name.
 */
export function queryTerms(query: string): QueryTerm[] {
  const byStem = new Map<string, QueryTerm>();
  // In a prompt written in Title Case or all capitals, capitals say nothing about names.
  const words = query.match(/[\p{L}][\p{L}\p{N}]*/gu) ?? [];
  const capitalised = words.filter((w) => /^\p{Lu}/u.test(w)).length;
  const namesMeanSomething = words.length < 4 || capitalised / words.length < 0.5;
  const paths = query.includes('/') ? pathSpans(query) : [];
  let at = 0;
  // Stems used inside a path (fewest words of any such path), and those used anywhere else.
  const inPath = new Map<string, number>();
  const outside = new Set<string>();
  let sentenceStart = true;
  for (const m of query.matchAll(/[\p{L}\p{N}]+|[.!?]/gu)) {
    const raw = m[0];
    if (raw === '.' || raw === '!' || raw === '?') {
      sentenceStart = true;
      continue;
    }
    const first = sentenceStart;
    sentenceStart = false;
    const word = fold(raw);
    if (word.length < MIN_TERM_CHARS || STOPWORDS.has(word)) continue;
    const stem = stemOf(word);
    while (at < paths.length && paths[at]!.end <= m.index) at += 1;
    const path = paths[at] && paths[at]!.start <= m.index ? paths[at]! : null;
    if (path) inPath.set(stem, Math.min(inPath.get(stem) ?? path.words, path.words));
    else outside.add(stem);
    const proper = namesMeanSomething && !first && /^\p{Lu}\p{Ll}/u.test(raw);
    const prev = byStem.get(stem);
    if (prev) {
      prev.proper ||= proper;
      continue;
    }
    if (byStem.size >= MAX_QUERY_TERMS) break;
    const components = camelComponents(raw);
    byStem.set(stem, components ? { word, stem, proper, components } : { word, stem, proper });
  }
  for (const [stem, words] of inPath) if (!outside.has(stem) && byStem.has(stem)) byStem.get(stem)!.pathWords = words;
  return [...byStem.values()];
}

/**
 * Stems of the query's content words in order, repeats kept (queryTerms keeps each stem once): the
 * word pairs of the prompt, for phrase evidence (operators/math/evidence.ts).
 */
export function contentStemSequence(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = fold(m[0]);
    if (word.length < MIN_TERM_CHARS || STOPWORDS.has(word)) continue;
    out.push(stemOf(word));
  }
  return out;
}

/**
 * Keys ("a b", the two stems in sorted order) of the adjacent content-word pairs of a text, function
 * words skipped, reading at most `maxChars` characters: the phrases of a note.
 */
export function textStemPairs(text: string, maxChars = Infinity): Set<string> {
  const out = new Set<string>();
  const src = text.length > maxChars ? text.slice(0, maxChars) : text;
  let prev: string | null = null;
  for (const m of src.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = fold(m[0]);
    if (word.length < MIN_TERM_CHARS || STOPWORDS.has(word)) continue;
    const stem = stemOf(word);
    if (prev !== null && prev !== stem) out.add(prev < stem ? `${prev} ${stem}` : `${stem} ${prev}`);
    prev = stem;
  }
  return out;
}

/** A note's stems, as a set and sorted (to find stems that start with a given prefix). */
export interface NoteTerms {
  set: ReadonlySet<string>;
  sorted: readonly string[];
}

export function noteTerms(stems: Iterable<string>): NoteTerms {
  const set = stems instanceof Set ? (stems as Set<string>) : new Set(stems);
  return { set, sorted: [...set].sort() };
}
