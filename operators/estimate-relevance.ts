/**
 * Relevance stage: an absolute relevance (0..1) for every candidate, the input of the abstention
 * floor. Runs after the cross-encoder (a rescored note takes sigmoid(logit)), on cached fetches too.
 *
 * - Lexical estimate (operators/math/relevance.ts) for every other candidate, from the query's terms
 *   weighed by the KB's document frequencies and by everyday-English word counts, both read through
 *   the injected `weigh` port.
 * - A query whose only specific words are its date phrase ("what changed last week") asks for the
 *   notes of that window: a note the temporal arm found gets WINDOW_MATCH_RELEVANCE.
 * - The port failing (index busy, word counts missing) degrades, never fails the recall: missing
 *   document frequencies count every term as present in one note, missing word counts weigh every
 *   term 0.5; the degradation is recorded.
 * Empty candidates → the state unchanged (apart from the weighed terms).
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState, RelevanceEstimate, WeighedTerm } from '../core/state.js';
import type { Candidate, Degradation } from '../core/types.js';
import { sigmoid } from './math/boosts.js';
import { GENERIC_INFO, WINDOW_MATCH_RELEVANCE, lexicalRelevance, relevanceFeatures, noteTerms } from './math/relevance.js';
import { textStems, stemOf, type QueryTerm } from '../core/stems.js';
import { STOPWORDS } from '../core/terms.js';
import { searchableText } from '../core/note.js';
import { scoringWindow } from './rerank-top.js';

/**
 * Words every conversation with a coding agent uses, whatever it is about. Everyday English rarely
 * says "code", "module" or "output", so word counts from films would call them specific; to a
 * coding agent they are not. Their weight is capped at GENERIC_INFO (measured: with them at their
 * film weights, 36 % of 40 everyday prompts such as "add error handling here" or "can you make this
 * code shorter" found a "relevant" learning in the example KB).
 */
export const EVERYDAY_CODING_WORDS: ReadonlySet<string> = new Set(
  (
    'code codes coding error errors file files folder function functions method test tests testing build builds ' +
    'run runs running fix fixes fixed bug bugs issue issues change changes changed update updates updated output ' +
    'input data value values module modules project work works working fail fails failed failing add added ' +
    'handling handle check problem problems line lines version setting settings option options command commands ' +
    'script scripts log logs page pages app application service system user thing things way step steps result ' +
    'results part parts time example case cases type types name names text list new old simple simpler shorter ' +
    'clean cleanup ship docs document comment comments variable variables style pull request merge commit ' +
    'fast faster slow slower easy easier better'
  )
    .split(' ')
    .map((w) => stemOf(w)),
);

/** Characters of a note read for the estimate: a long note is judged by its start. */
export const RELEVANCE_TEXT_CHARS = 20_000;

/**
 * Weight in everyday English at or above which a query word is specific: a note must contain one to
 * be relevant, and one the KB lacks is named in the abstention reason. 0.6 is about a word used a few
 * hundred times in 50 million words ("terraform", "kafka", "pool" are above; "fail", "waiting" below).
 */
export const SPECIFIC_INFO = 0.6;
/** Relevance at most of a note that contains no specific query word: under every default floor. */
export const GENERIC_ONLY_MAX = 0.2;

export interface TermWeights {
  /** Live notes in the KB. */
  live: number;
  /** Live notes containing each stem. */
  df: ReadonlyMap<string, number>;
  /** Everyday-English weight of each stem (0..1). */
  info: ReadonlyMap<string, number>;
}

export interface EstimateRelevanceOptions {
  /** The query's content terms (its date phrase removed). */
  terms: readonly QueryTerm[];
  /** Looks up document frequencies and word weights; may throw (degrades). */
  weigh: (stems: readonly string[]) => { live: number; df: ReadonlyMap<string, number> | Error; info: ReadonlyMap<string, number> | Error };
  /** The query has a date window (the temporal arm ran). */
  dateWindow: boolean;
  /**
   * The request's limit. The candidates estimated, in fusion order, are the scoring window (the
   * cross-encoder's RERANK_WINDOW when it scored, else LEXICAL_WINDOW) or the limit if larger: only
   * they can rank above anything (later candidates score 1e-6), and a note the cross-encoder never
   * saw must not clear the floor on its words alone. The rest get relevance 0 (below any floor).
   */
  limit: number;
  /** Notes (by path) the KB's entity graph links to each given note; may throw (no links then). */
  links?: (paths: readonly string[]) => ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * A note the KB's own entity graph links to a clearly relevant note (a shared specific entity, a
 * causal relationship) is related context: it gets this share of that note's relevance when its
 * own words say less ("gateway 504 cascade" for a question about the redis pool it was caused by).
 * 2/3 lifts the neighbours of a note the estimate is fairly sure of (≥ 0.75) over a 0.5 floor, and
 * never lifts anything when the best note is itself under the floor.
 */
export const LINK_SHARE = 2 / 3;

function titleStems(title: string): Set<string> {
  const out = new Set<string>();
  for (const w of title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    out.add(stemOf(w));
  }
  return out;
}

/** Weigh the terms, recording what could not be looked up. */
export function weighTerms(
  terms: readonly QueryTerm[],
  weigh: EstimateRelevanceOptions['weigh'],
): { weighed: WeighedTerm[]; live: number; degraded: Degradation[] } {
  const degraded: Degradation[] = [];
  let live = 1;
  let df: ReadonlyMap<string, number> | null = null;
  let info: ReadonlyMap<string, number> | null = null;
  try {
    const w = weigh(terms.map((t) => t.stem));
    live = w.live;
    if (w.df instanceof Error)
      degraded.push({ stage: 'relevance', reason: 'error', message: `document frequencies unavailable: ${w.df.message}` });
    else df = w.df;
    if (w.info instanceof Error) degraded.push({ stage: 'relevance', reason: 'unavailable', message: w.info.message });
    else info = w.info;
  } catch (err) {
    degraded.push({ stage: 'relevance', reason: 'error', message: `term weights unavailable: ${(err as Error).message}` });
  }
  const weighed = terms.map((t) => {
    const everyday = EVERYDAY_CODING_WORDS.has(t.stem);
    const w = t.proper ? 1 : Math.min(info?.get(t.stem) ?? 0.5, everyday ? GENERIC_INFO : 1);
    // Rarity in this KB is not enough to be specific: measured, counting words in ≤ 5 % of the notes
    // as specific let 14 % of everyday prompts through (against 2.5 %).
    return { ...t, info: w, df: df ? (df.get(t.stem) ?? 0) : 1, specific: t.proper || w >= SPECIFIC_INFO, everyday };
  });
  return { weighed, live: Math.max(1, live), degraded };
}

export function estimateRelevance(opts: EstimateRelevanceOptions): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    const { weighed, live, degraded } = weighTerms(opts.terms, opts.weigh);
    const window = scoringWindow(state.ce, opts.limit);
    // Only the date phrase is specific: notes inside the window are what was asked for.
    const windowQuery = opts.dateWindow && weighed.every((t) => t.info < GENERIC_INFO);
    const relevance = new Map<string, RelevanceEstimate>();
    const estimate = (c: Candidate): RelevanceEstimate => {
      const features = weighed.length
        ? relevanceFeatures(weighed, noteTerms(textStems(searchableText(c.note), RELEVANCE_TEXT_CHARS)), titleStems(c.note.title), live)
        : null;
      const logit = state.ce?.get(c.note.key);
      if (logit !== undefined) return { p: sigmoid(logit), source: 'cross-encoder', features };
      if (windowQuery && c.ranks.temporal !== undefined) return { p: WINDOW_MATCH_RELEVANCE, source: 'date-window', features };
      if (!features) return { p: 0, source: 'lexical', features };
      // A note that shares only everyday words with the query ("fail", "tests", "run") is not about it,
      // however many of them it shares: it needs at least one specific word of the query.
      const p = lexicalRelevance(features);
      return { p: features.specificCovered ? p : Math.min(p, GENERIC_ONLY_MAX), source: 'lexical', features };
    };
    state.candidates.forEach((c, i) => {
      if (relevance.has(c.note.key)) return;
      relevance.set(c.note.key, i < window ? estimate(c) : { p: 0, source: 'lexical', features: null });
    });
    if (opts.links && state.candidates.length > 1) {
      try {
        const links = opts.links(state.candidates.slice(0, window).map((c) => c.note.path));
        const byPath = new Map(state.candidates.map((c) => [c.note.path, c.note.key]));
        const own = new Map([...relevance].map(([k, e]) => [k, e.p]));
        for (const c of state.candidates) {
          // Related context must still share something specific with the query: a note linked to a
          // relevant one but about none of the query's specific words is not about the query.
          const f = relevance.get(c.note.key)?.features;
          if (!f || !f.specificCovered) continue;
          let support = 0;
          for (const other of links.get(c.note.path) ?? [])
            support = Math.max(support, (own.get(byPath.get(other) ?? '') ?? 0) * LINK_SHARE);
          const e = relevance.get(c.note.key)!;
          if (support > e.p) relevance.set(c.note.key, { ...e, p: support, source: 'linked' });
        }
      } catch (err) {
        degraded.push({ stage: 'relevance', reason: 'error', message: `entity links unavailable: ${(err as Error).message}` });
      }
    }
    return {
      ...state,
      weighed,
      relevance,
      degraded: degraded.length ? [...state.degraded, ...degraded] : state.degraded,
    };
  });
}
