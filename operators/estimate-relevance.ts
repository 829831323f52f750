/**
 * Relevance stage: an absolute relevance (0..1) for every candidate, the input of the abstention
 * floor. Runs after the cross-encoder (a rescored note takes sigmoid(logit)), on cached fetches too.
 *
 * - Lexical estimate (operators/math/relevance.ts) for every other candidate, from the query's terms
 *   weighed by the KB's document frequencies and by everyday-English word counts, both read through
 *   the injected `weigh` port (weigh-terms.ts: a word's count includes the word forms through which
 *   the window's notes contain it; a name the KB knows stops counting as specific when the KB knows
 *   no other specific word of the query).
 * - Each lexical estimate also has a ranking form, which counts the title's label words (a
 *   conversation's speaker): they say which notes of this KB are nearer, not whether it is about
 *   the query (RelevanceEstimate.ranking; apply-boosts.ts multiplies it).
 * - Each estimate in the window also says what share of the query's phrases the note's title
 *   repeats (title-phrases.ts; RelevanceEstimate.titlePhrases), which the ranking multiplies in too.
 * - A query whose only specific words are its date phrase ("what changed last week") asks for the
 *   notes of that window: a note the temporal arm found gets WINDOW_MATCH_RELEVANCE.
 * - A note linked by the KB's entity graph to a clearly relevant one gets LINK_SHARE of its relevance;
 *   a note that supersedes a relevant one gets all of it (lift-successors.ts).
 * - The port failing (index busy, word counts missing) degrades, never fails the recall: missing
 *   document frequencies count every term as present in one note, missing word counts weigh every
 *   term 0.5; the degradation is recorded.
 * Empty candidates → the state unchanged (apart from the weighed terms).
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState, RelevanceEstimate, WeighedTerm } from '../core/state.js';
import type { Candidate, Degradation } from '../core/types.js';
import {
  sigmoid,
  GENERIC_INFO,
  WINDOW_MATCH_RELEVANCE,
  lexicalRelevance,
  relevanceFeatures,
  noteTerms,
  type NoteTerms,
} from './math/index.js';
import { textStems, type QueryTerm } from '../core/stems.js';
import { textMemo } from '../core/text-memo.js';
import { type Note, searchableText } from '../core/note/index.js';
import { evidenceOf, RELEVANCE_TEXT_CHARS } from './relevance-evidence.js';
import { everydayPrefixes, namedTerms, namesAloneUnspecific, weighTerms, widenToMatches, type WeighPort } from './weigh-terms.js';
import { scoringWindow } from './rerank-top.js';
import { liftSuccessors, type SuccessorsPort } from './lift-successors.js';
import { nameCoverage, titleStems } from './title-phrases.js';
import { liftAskedSteps } from './lift-asked-steps.js';
import { liftExplained } from './lift-explained.js';
import { liftForbidden } from './lift-forbidden.js';

export { RELEVANCE_TEXT_CHARS };

/** Notes' stems, kept between recalls (core/text-memo.ts). */
const noteStems = textMemo((text) => noteTerms(textStems(text)), RELEVANCE_TEXT_CHARS);

/** A note's stems as the relevance estimate reads them (its first RELEVANCE_TEXT_CHARS characters). */
export function stemsOfNote(note: Note): NoteTerms {
  return noteStems(note.key, searchableText(note));
}

/** A note's stems from the state when the estimate computed them (once per recall), else computed now. */
export function noteTermsIn(state: Pick<RecallState, 'noteTerms'>, note: Note): NoteTerms {
  return state.noteTerms.get(note.key) ?? stemsOfNote(note);
}

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
  /** Stems of the query's content words in order, repeats kept (its word pairs are phrase evidence). */
  sequence?: readonly string[];
  /** Looks up document frequencies and word weights; may throw (degrades). */
  weigh: WeighPort;
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
  /** Which of the given notes supersede which (lift-successors.ts); may throw (no lift then). */
  successors?: SuccessorsPort;
}

/**
 * A note the KB's own entity graph links to a clearly relevant note (a shared specific entity, a
 * causal relationship) is related context: it gets this share of that note's relevance when its
 * own words say less ("gateway 504 cascade" for a question about the redis pool it was caused by).
 * 2/3 lifts the neighbours of a note the estimate is fairly sure of (≥ 0.75) over a 0.5 floor, and
 * never lifts anything when the best note is itself under the floor.
 */
export const LINK_SHARE = 2 / 3;

/**
 * The query's terms as the estimate weighs them: everyday-English weight and document frequency
 * (widened to the word forms through which the window's notes contain them), names made unspecific
 * when the KB knows no other specific word of the query (see weigh-terms.ts).
 */
function weighQuery(
  opts: EstimateRelevanceOptions,
  terms: readonly QueryTerm[],
  notes: readonly NoteTerms[],
): { weighed: WeighedTerm[]; live: number; degraded: Degradation[] } {
  const exact = weighTerms(terms, opts.weigh);
  const widened = widenToMatches(everydayPrefixes(exact.weighed, opts.weigh), notes, opts.weigh, exact.dfKnown);
  return {
    weighed: namesAloneUnspecific(widened.weighed, exact.live),
    live: exact.live,
    degraded: [...exact.degraded, ...widened.degraded],
  };
}

/** Lifts notes the KB's entity graph links to a clearly relevant one (LINK_SHARE); a failing lookup is recorded. */
function liftLinked(
  relevance: Map<string, RelevanceEstimate>,
  candidates: readonly Candidate[],
  window: number,
  links: NonNullable<EstimateRelevanceOptions['links']>,
  degraded: Degradation[],
): void {
  try {
    const linked = links(candidates.slice(0, window).map((c) => c.note.path));
    const byPath = new Map(candidates.map((c) => [c.note.path, c.note.key]));
    const own = new Map([...relevance].map(([k, e]) => [k, e.p]));
    for (const c of candidates) {
      // The link is the evidence: the KB's own graph says the two notes are about one matter (a
      // shared entity few notes name, or a relationship), and a root cause shares few words with
      // its symptom by design ("gateway 504s during spikes" → "redis pool exhaustion"). Only a
      // note the estimate is fairly sure of lends relevance, so a query that abstains stays silent.
      const e = relevance.get(c.note.key);
      // A link lends relevance to a note that says something of the query itself, never to one that
      // shares no word with it but everyday ones: the graph may tie a cron note to a pool note
      // through a shared service, and a question about the pool is still not about cron.
      if (!e || !e.features || e.features.maxCovered <= GENERIC_INFO) continue;
      let support = 0;
      for (const other of linked.get(c.note.path) ?? []) support = Math.max(support, (own.get(byPath.get(other) ?? '') ?? 0) * LINK_SHARE);
      if (support > e.p) relevance.set(c.note.key, { ...e, p: support, ranking: Math.max(support, e.ranking ?? e.p), source: 'linked' });
    }
  } catch (err) {
    degraded.push({ stage: 'relevance', reason: 'error', message: `entity links unavailable: ${(err as Error).message}` });
  }
}

/**
 * A function or method the query calls by name (`Batch.commit()`, `freeze()`, `deploy(`): the word
 * names code, not the work a memory is named for (`commit-message-format`, `release-freeze`).
 */
const CALLED_RE = /(?<![\w$])[A-Za-z_$][\w$]*(?=\()/g;

/**
 * The query's stems that may use a memory's name: every weighed stem but those the query says only
 * as the name of a function it calls ("Batch.commit() sends every message twice" says no commit).
 */
function namedInWords(weighed: readonly WeighedTerm[], query: string): Set<string> {
  const stems = new Set(weighed.map((t) => t.stem));
  const text = query.slice(0, 4000);
  const called = textStems([...text.matchAll(CALLED_RE)].map((m) => m[0]).join(' '));
  if (called.size === 0) return stems;
  const said = textStems(text.replace(CALLED_RE, ' '));
  for (const s of called) if (!said.has(s)) stems.delete(s);
  return stems;
}

/** What estimating one note reads: the weighed query, the notes' stems and evidence, the model scores. */
interface EstimateContext {
  weighed: WeighedTerm[];
  live: number;
  stemsOf: Map<string, NoteTerms>;
  queryStems: ReadonlySet<string>;
  extra: ReturnType<typeof evidenceOf>;
  ce: RecallState['ce'];
  /** Only the date phrase is specific: notes inside the window are what was asked for. */
  windowQuery: boolean;
}

/** The relevance estimate of one note whose stems the context holds. */
function estimateOne(c: Candidate, ctx: EstimateContext): RelevanceEstimate {
  const { weighed, live } = ctx;
  const lexical = weighed.length ? relevanceFeatures(weighed, ctx.stemsOf.get(c.note.key)!, titleStems(c.note.title), live) : null;
  // A memory's name is its title as much as its description is: the better of the two counts,
  // once the query uses enough of the name to be about it (one word of three is a passing word).
  const name = nameCoverage(c.note, ctx.queryStems);
  const base =
    lexical && name.specific && name.share > lexical.titleCoverage
      ? { ...lexical, titleCoverage: name.share, titleWithLabels: Math.max(lexical.titleWithLabels, name.share) }
      : lexical;
  const more = ctx.extra.get(c.note.key);
  let features = base;
  const titlePhrases = more?.titlePhrases ?? 0;
  if (base && more) {
    const { specificPhrase, titlePhrases: _t, ...amounts } = more;
    // A phrase of the query the note repeats ("connection pool") is a specific combination; so
    // are two words of a memory's name.
    features = { ...base, ...amounts, specificCovered: base.specificCovered || specificPhrase || name.specific ? 1 : 0 };
  }
  const logit = ctx.ce?.get(c.note.key);
  if (logit !== undefined) return { p: sigmoid(logit), source: 'cross-encoder', features };
  if (ctx.windowQuery && c.ranks.temporal !== undefined)
    return { p: WINDOW_MATCH_RELEVANCE, source: 'date-window', features, titlePhrases };
  if (!features) return { p: 0, source: 'lexical', features };
  // A note that shares only everyday words with the query ("fail", "tests", "run") is not about it,
  // however many of them it shares: it needs at least one specific word of the query.
  const cap = (x: number): number => (features.specificCovered ? x : Math.min(x, GENERIC_ONLY_MAX));
  const ranking = lexicalRelevance({ ...features, titleCoverage: features.titleWithLabels });
  return { p: cap(lexicalRelevance(features)), ranking: cap(ranking), source: 'lexical', features, titlePhrases };
}

/**
 * The successor lift, with the notes the superseded filter took out estimated too, apart (their
 * evidence is weighed among the window and them, so the live notes' own estimates stay as they
 * were): a replaced memory that is about the query ("comment jenkins retest this") passes that to
 * its replacement ("gh run rerun --failed"), whose words differ. They never become results.
 */
function liftFromRetired(
  state: RecallState,
  window: number,
  relevance: Map<string, RelevanceEstimate>,
  ctx: EstimateContext,
  opts: EstimateRelevanceOptions,
  degraded: Degradation[],
): void {
  const retired = state.retired.filter((c) => !relevance.has(c.note.key)).slice(0, window);
  for (const c of retired) if (!ctx.stemsOf.has(c.note.key)) ctx.stemsOf.set(c.note.key, stemsOfNote(c.note));
  if (retired.length) {
    const extra = evidenceOf([...state.candidates.slice(0, window), ...retired], ctx.stemsOf, ctx.weighed, ctx.live, opts);
    for (const c of retired) relevance.set(c.note.key, estimateOne(c, { ...ctx, extra }));
  }
  const all = [...state.candidates, ...retired];
  if (all.length > 1) liftSuccessors(relevance, all, opts.successors!, degraded);
  for (const c of retired) relevance.delete(c.note.key);
}

export function estimateRelevance(opts: EstimateRelevanceOptions): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    const window = scoringWindow(state.ce, opts.limit);
    const stemsOf = new Map<string, NoteTerms>();
    for (const c of state.candidates.slice(0, window)) if (!stemsOf.has(c.note.key)) stemsOf.set(c.note.key, stemsOfNote(c.note));
    const terms = namedTerms(
      opts.terms,
      state.candidates.slice(0, window).map((c) => c.note),
      opts.weigh,
    );
    const { weighed, live, degraded } = weighQuery(opts, terms, [...stemsOf.values()]);
    const relevance = new Map<string, RelevanceEstimate>();
    const ctx: EstimateContext = {
      weighed,
      live,
      stemsOf,
      queryStems: namedInWords(weighed, state.query),
      extra: evidenceOf(state.candidates.slice(0, window), stemsOf, weighed, live, opts),
      ce: state.ce,
      windowQuery: Boolean(opts.dateWindow && weighed.every((t) => t.info < GENERIC_INFO)),
    };
    // Called for candidates inside the window only, whose stems stemsOf holds.
    const estimate = (c: Candidate): RelevanceEstimate => estimateOne(c, ctx);
    state.candidates.forEach((c, i) => {
      if (relevance.has(c.note.key)) return;
      relevance.set(c.note.key, i < window ? estimate(c) : { p: 0, source: 'lexical', features: null });
    });
    if (opts.links && state.candidates.length > 1) liftLinked(relevance, state.candidates, window, opts.links, degraded);
    // After the link lift, so a replacement is never left below what its predecessor was lifted to.
    if (opts.successors) liftFromRetired(state, window, relevance, ctx, opts, degraded);
    // A request for a git step ("commit all of this") is about the learnings named for it.
    liftAskedSteps(relevance, state.candidates.slice(0, window), state.query);
    // A prompt asking what something means is about the memory on how to explain to this user.
    liftExplained(relevance, state.candidates.slice(0, window), state.query, weighed);
    // A prompt naming what a rule forbids ("just unwrap it") is about that rule.
    liftForbidden(relevance, state.candidates.slice(0, window), weighed, state.query);
    return {
      ...state,
      weighed,
      relevance,
      noteTerms: stemsOf,
      degraded: degraded.length ? [...state.degraded, ...degraded] : state.degraded,
    };
  });
}
