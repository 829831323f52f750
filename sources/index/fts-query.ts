/**
 * The FTS5 MATCH expression of a free-text query: an OR of its terms (Unicode words of 2+ characters,
 * stopwords dropped; a hyphenated term is its phrase and its parts). Terms are cut to MAX_TERM_CHARS
 * and MAX_PHRASE_PARTS: a 50 KB hyphen-joined "word" would otherwise become one phrase whose matching
 * costs seconds per call. Used by the BM25 arm and by the graph search's entity lookup.
 */
import { STOPWORDS } from '../../core/terms.js';

/** Longest query turned into terms (a pasted log should not build a 10k-term MATCH). */
const MAX_TERMS = 64;
const WORD_RE = /[\p{L}\p{N}][\p{L}\p{N}_-]*/gu;
/** Longest term kept (longer ones are cut; real identifiers are far shorter). */
export const MAX_TERM_CHARS = 64;
/** Most words in one hyphenated phrase (kebab-case names have a handful). */
export const MAX_PHRASE_PARTS = 6;

/** A query word cut to the term and phrase caps. */
export function capTerm(word: string): string {
  const parts = word.slice(0, MAX_TERM_CHARS * 2).split(/(?<=[^-_])(?=[-_])/);
  return parts.slice(0, MAX_PHRASE_PARTS).join('').slice(0, MAX_TERM_CHARS);
}

/** FTS5 MATCH expression for a free-text query, or null when it has no usable terms. */
export function ftsQuery(query: string): string | null {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const m of query.toLowerCase().matchAll(WORD_RE)) {
    const t = capTerm(m[0]).replace(/[-_]+$/, '');
    // A hyphenated term counts as its phrase and as each of its parts: "transgender-specific" finds a
    // note that only says "transgender", and one with the phrase scores higher (it matches both).
    const parts = /[-_]/.test(t) ? t.split(/[-_]+/).filter((p) => p.length >= 2 && !STOPWORDS.has(p)) : [];
    for (const x of [t, ...parts]) {
      if (x.length < 2 || STOPWORDS.has(x) || seen.has(x)) continue;
      seen.add(x);
      terms.push(`"${x.replace(/"/g, '""')}"`);
      if (terms.length >= MAX_TERMS) break;
    }
    if (terms.length >= MAX_TERMS) break;
  }
  return terms.length ? terms.join(' OR ') : null;
}
