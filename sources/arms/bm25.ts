/**
 * BM25 arm on the embedded FTS5 index.
 *
 * The query becomes an OR of its terms (Unicode words of 2+ characters, stopwords dropped; a
 * hyphenated term is its phrase and its parts), so a sentence-shaped prompt still matches notes
 * that share some of its words, ranked by BM25 with title, tags and key insight weighted above the
 * body (the MATCH expression: sources/index/fts-query.ts). Related words (expansions) run as a second
 * query whose scores count less; a note found only by them keeps that lower score. Empty query terms
 * → no hits. Lazy: nothing runs before subscribe.
 */
import { catchError, defer, forkJoin, from, map, of, type Observable } from 'rxjs';
import { type FtsOptions, type IndexHandle, type ScoredRow, ftsQuery, searchFts } from '../index/index.js';
import type { ArmHit } from '../../core/types.js';

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
