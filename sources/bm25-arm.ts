/**
 * BM25 arm on the embedded FTS5 index.
 *
 * The query becomes an OR of its terms (Unicode words of 2+ characters, stopwords dropped; a
 * hyphenated term is a phrase), so a sentence-shaped prompt still matches notes that share some of
 * its words, ranked by BM25 with title, tags and key insight weighted above the body. Terms are cut
 * to MAX_TERM_CHARS and MAX_PHRASE_PARTS: a 50 KB hyphen-joined "word" would otherwise become one
 * phrase whose matching costs seconds per call.
 * Empty query terms → no hits. Lazy: nothing runs before subscribe.
 */
import { defer, of, type Observable } from 'rxjs';
import type { IndexHandle } from './index-store.js';
import { searchFts } from './index-store.js';
import { STOPWORDS } from '../operators/math/terms.js';
import type { ArmHit } from '../pipeline/types.js';

/** Longest query the arm turns into terms (a pasted log should not build a 10k-term MATCH). */
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
    if (t.length < 2 || STOPWORDS.has(t) || seen.has(t)) continue;
    seen.add(t);
    terms.push(`"${t.replace(/"/g, '""')}"`);
    if (terms.length >= MAX_TERMS) break;
  }
  return terms.length ? terms.join(' OR ') : null;
}

export function bm25Arm(query: string, limit: number, index: IndexHandle): Observable<ArmHit[]> {
  return defer(() => {
    const match = ftsQuery(query);
    if (!match) return of([]);
    return of(searchFts(index, match, limit).map((r) => ({ note: r.note, score: r.score })));
  });
}
