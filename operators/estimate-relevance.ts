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
  evidenceMass,
  logScale,
  phraseCount,
  queryPairs,
  saturate,
  standouts,
  summaryShare,
  type StemPair,
} from './math/index.js';
import { textStemPairs, textStems, type QueryTerm } from '../core/stems.js';
import { type Note, searchableText } from '../core/note/index.js';
import { everydayPrefixes, namedTerms, namesAloneUnspecific, weighTerms, widenToMatches, type WeighPort } from './weigh-terms.js';
import { scoringWindow } from './rerank-top.js';
import { liftSuccessors, type SuccessorsPort } from './lift-successors.js';
import { titlePhrases, titleStems } from './title-phrases.js';

/** Characters of a note read for the estimate: a long note is judged by its start. */
export const RELEVANCE_TEXT_CHARS = 20_000;

/** A note's stems as the relevance estimate reads them (its first RELEVANCE_TEXT_CHARS characters). */
export function stemsOfNote(note: Note): NoteTerms {
  return noteTerms(textStems(searchableText(note), RELEVANCE_TEXT_CHARS));
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

interface Evidence {
  evidence: number;
  summaryShare: number;
  phrases: number;
  standout: number;
  specificPhrase: boolean;
  /** Share of the query's phrases the title repeats (RelevanceEstimate.titlePhrases). */
  titlePhrases: number;
}

/**
 * The absolute evidence features of the window's notes (operators/math/evidence.ts), and whether
 * each repeats a phrase of the query made of words that are not everyday coding words, and how
 * many of the query's phrases its title repeats.
 */
function evidenceOf(
  window: readonly Candidate[],
  stemsOf: ReadonlyMap<string, NoteTerms>,
  weighed: readonly WeighedTerm[],
  live: number,
  opts: EstimateRelevanceOptions,
): Map<string, Evidence> {
  const out = new Map<string, Evidence>();
  if (!weighed.length) return out;
  const notes = window.filter((c, i) => window.findIndex((d) => d.note.key === c.note.key) === i);
  const summaries = summaryWeights(new Map(notes.map((c) => [c.note.key, summaryStems(c.note)])), opts.weigh);
  const byStem = new Map(weighed.map((t) => [t.stem, t]));
  const pairs: StemPair[] = queryPairs((opts.sequence ?? weighed.map((t) => t.stem)).filter((s) => byStem.has(s)));
  const specificPairs = pairs.filter(([a, b]) => !byStem.get(a)!.everyday && !byStem.get(b)!.everyday);
  const masses: number[] = [];
  for (const c of notes) {
    const terms = stemsOf.get(c.note.key)!;
    const { mass, matched } = evidenceMass(weighed, terms, live);
    masses.push(mass);
    let phrasesOf: Set<string> | null = null;
    const notePairs = (): Set<string> => (phrasesOf ??= textStemPairs(searchableText(c.note), RELEVANCE_TEXT_CHARS));
    const phrases = phraseCount(pairs, byStem, terms, notePairs);
    const specificPhrase = phrases > 0 && phraseCount(specificPairs, byStem, terms, notePairs) > 0;
    out.set(c.note.key, {
      evidence: logScale(mass),
      summaryShare: summaryShare(summaries.get(c.note.key)!, matched),
      phrases: saturate(phrases),
      standout: 0,
      specificPhrase,
      titlePhrases: 0,
    });
  }
  standouts(masses).forEach((s, i) => (out.get(notes[i]!.note.key)!.standout = s));
  const titles = titlePhrases(
    notes.map((c) => c.note),
    pairs,
    byStem,
    live,
  );
  for (const [key, share] of titles) out.get(key)!.titlePhrases = share;
  return out;
}

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

/** Stems of a note's summary (title, key insight, tags), function words left out. */
function summaryStems(note: Pick<Note, 'title' | 'keyInsight' | 'tags'>): Set<string> {
  return titleStems([note.title, note.keyInsight, note.tags.join(' ')].join(' '));
}

/**
 * Everyday-English weights of the summary stems of every note in the window, in one lookup (word
 * counts only, no index read). Unavailable counts weigh every stem 0.5.
 */
function summaryWeights(
  summaries: ReadonlyMap<string, Set<string>>,
  weigh: EstimateRelevanceOptions['weigh'],
): Map<string, Map<string, number>> {
  const all = [...new Set([...summaries.values()].flatMap((s) => [...s]))];
  let info: ReadonlyMap<string, number> | null = null;
  try {
    const w = all.length ? weigh(all, { infoOnly: true }) : null;
    if (w && !(w.info instanceof Error)) info = w.info;
  } catch {
    info = null;
  }
  const out = new Map<string, Map<string, number>>();
  for (const [key, stems] of summaries) out.set(key, new Map([...stems].map((st) => [st, info?.get(st) ?? 0.5])));
  return out;
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
    // Only the date phrase is specific: notes inside the window are what was asked for.
    const windowQuery = opts.dateWindow && weighed.every((t) => t.info < GENERIC_INFO);
    const relevance = new Map<string, RelevanceEstimate>();
    const extra = evidenceOf(state.candidates.slice(0, window), stemsOf, weighed, live, opts);
    // Called for candidates inside the window only, whose stems stemsOf holds.
    const estimate = (c: Candidate): RelevanceEstimate => {
      const base = weighed.length ? relevanceFeatures(weighed, stemsOf.get(c.note.key)!, titleStems(c.note.title), live) : null;
      const more = extra.get(c.note.key);
      let features = base;
      const titlePhrases = more?.titlePhrases ?? 0;
      if (base && more) {
        const { specificPhrase, titlePhrases: _t, ...amounts } = more;
        // A phrase of the query the note repeats ("connection pool") is a specific combination.
        features = { ...base, ...amounts, specificCovered: base.specificCovered || specificPhrase ? 1 : 0 };
      }
      const logit = state.ce?.get(c.note.key);
      if (logit !== undefined) return { p: sigmoid(logit), source: 'cross-encoder', features };
      if (windowQuery && c.ranks.temporal !== undefined)
        return { p: WINDOW_MATCH_RELEVANCE, source: 'date-window', features, titlePhrases };
      if (!features) return { p: 0, source: 'lexical', features };
      // A note that shares only everyday words with the query ("fail", "tests", "run") is not about it,
      // however many of them it shares: it needs at least one specific word of the query.
      const cap = (x: number): number => (features.specificCovered ? x : Math.min(x, GENERIC_ONLY_MAX));
      const ranking = lexicalRelevance({ ...features, titleCoverage: features.titleWithLabels });
      return { p: cap(lexicalRelevance(features)), ranking: cap(ranking), source: 'lexical', features, titlePhrases };
    };
    state.candidates.forEach((c, i) => {
      if (relevance.has(c.note.key)) return;
      relevance.set(c.note.key, i < window ? estimate(c) : { p: 0, source: 'lexical', features: null });
    });
    if (opts.links && state.candidates.length > 1) liftLinked(relevance, state.candidates, window, opts.links, degraded);
    // After the link lift, so a replacement is never left below what its predecessor was lifted to.
    if (opts.successors && state.candidates.length > 1) liftSuccessors(relevance, state.candidates, opts.successors, degraded);
    return {
      ...state,
      weighed,
      relevance,
      noteTerms: stemsOf,
      degraded: degraded.length ? [...state.degraded, ...degraded] : state.degraded,
    };
  });
}
