/**
 * BM25 arm on the embedded FTS5 index.
 *
 * The query becomes an OR of its terms (Unicode words of 2+ characters, stopwords dropped; a
 * hyphenated term is its phrase and its parts), so a sentence-shaped prompt still matches notes
 * that share some of its words, ranked by BM25 with title, tags and key insight weighted above the
 * body. Related words (expansions) run as a second query whose scores count less; a note found
 * only by them keeps that lower score. Terms are cut to MAX_TERM_CHARS and MAX_PHRASE_PARTS: a
 * 50 KB hyphen-joined "word" would otherwise become one phrase whose matching costs seconds per
 * call. Empty query terms → no hits. Lazy: nothing runs before subscribe.
 */
import { catchError, defer, forkJoin, from, map, of, type Observable } from 'rxjs';
import { type FtsOptions, type IndexHandle, type ScoredRow, searchFts } from '../index/index.js';
import { STOPWORDS } from '../../core/terms.js';
import type { ArmHit } from '../../core/types.js';

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

/**
 * Share of an expansion word's BM25 score that counts: a related word ("taekwondo" for "martial
 * arts") is evidence, but less than the user's own word. Measured on the LoCoMo dev conversations
 * (evidence recall@10 with 0.2 / 0.35 / 0.5: 0.655 / 0.658 / 0.657; none: 0.651).
 */
export const EXPANSION_WEIGHT = 0.35;

export interface Bm25Options {
  /** Weight of each match's episode context (see searchFts); 0 or absent = own score only. */
  episodeWeight?: number;
  /**
   * Related words (WordNet) and the query's date-phrase words, searched in a second query whose
   * scores count EXPANSION_WEIGHT.
   */
  expansions?: readonly string[];
}

/** One FTS query: on the index's worker threads when it has them (in this thread if they fail), else here. */
function search(index: IndexHandle, match: string | null, limit: number, opts: FtsOptions = {}): Observable<ScoredRow[]> {
  if (!match) return of([]);
  const here = defer(() => of(searchFts(index, match, limit, opts)));
  const offload = index.offload;
  return offload ? defer(() => from(offload.fts(match, limit, opts))).pipe(catchError(() => here)) : here;
}

/** The user's words' hits, with the related words' hits added at EXPANSION_WEIGHT. */
function combine(own: readonly ScoredRow[], related: readonly ScoredRow[], limit: number): ArmHit[] {
  const hit = (r: ScoredRow): ArmHit =>
    r.context ? { note: r.note, score: r.score, context: r.context } : { note: r.note, score: r.score };
  if (related.length === 0) return own.map(hit);
  const byKey = new Map<string, ArmHit>();
  for (const r of own) byKey.set(r.note.key, hit(r));
  for (const r of related) {
    const hit = byKey.get(r.note.key);
    if (hit) hit.score += EXPANSION_WEIGHT * r.score;
    else byKey.set(r.note.key, { note: r.note, score: EXPANSION_WEIGHT * r.score });
  }
  return [...byKey.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}

export function bm25Arm(query: string, limit: number, index: IndexHandle, opts: Bm25Options = {}): Observable<ArmHit[]> {
  return defer(() => {
    const expansion = opts.expansions?.length ? ftsQuery(opts.expansions.join(' ')) : null;
    // Episode context comes from the user's own words: related words are weaker evidence of which session is meant.
    const own = search(index, ftsQuery(query), limit, { episodeWeight: opts.episodeWeight ?? 0 });
    return forkJoin([own, search(index, expansion, limit)]).pipe(map(([own, related]) => combine(own, related, limit)));
  });
}
