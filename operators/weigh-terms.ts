/**
 * How much each query term says, for the relevance estimate (estimate-relevance.ts): its weight in
 * everyday English, how many notes of this KB contain it, and whether it pins a topic down on its own.
 * Pure apart from the injected `weigh` port, whose failures degrade (and are recorded), never throw.
 */
import type { WeighedTerm } from '../core/state.js';
import type { Degradation } from '../core/types.js';
import { stemOf, type QueryTerm } from '../core/stems.js';
import { namesInTexts } from '../core/text-names.js';
import type { Note } from '../core/note/index.js';
import { GENERIC_INFO, abbreviationCandidates, isLabel, matchedStem, type NoteTerms } from './math/index.js';

/**
 * Looks up document frequencies (this KB) and everyday-English weights of stems; may throw. With
 * `infoOnly` the document frequencies may be left out (an empty map): the index is not read.
 */
export type WeighPort = (
  stems: readonly string[],
  opts?: { infoOnly?: boolean },
) => {
  live: number;
  df: ReadonlyMap<string, number> | Error;
  info: ReadonlyMap<string, number> | Error;
  /** Those of the stems everyday English writes as names ("friday", "carolin"); absent when unknown. */
  names?: ReadonlySet<string>;
};

/**
 * Words every conversation with a coding agent uses, whatever it is about. Everyday English rarely
 * says "code", "module" or "output", so word counts from films would call them specific; to a
 * coding agent they are not. Their weight is capped at GENERIC_INFO (measured: with them at their
 * film weights, 36 % of 40 everyday prompts such as "add error handling here" or "can you make this
 * code shorter" found a "relevant" learning in the example KB). Git's steps and "PR" are such words
 * too: "revert your last change" gave two memories that mention a revert in passing.
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
    'fast faster slow slower easy easier better pr prs revert reverted reverting rebase ' +
    // Words of every codebase that everyday English (film subtitles) never uses, so would otherwise
    // weigh as much as a tool's name: "where is the config loaded" names no topic.
    'config configs repo repos env util utils param params arg args impl readme todo todos ' +
    'refactor refactoring codebase'
  )
    .split(' ')
    .map((w) => stemOf(w)),
);

/**
 * Weight in everyday English at or above which a query word is specific: a note must contain one to
 * be relevant, and one the KB lacks is named in the abstention reason. 0.6 is about a word used a few
 * hundred times in 50 million words ("terraform", "kafka", "pool" are above; "fail", "waiting" below).
 */
export const SPECIFIC_INFO = 0.6;

/** Weigh the terms, recording what could not be looked up. */
export function weighTerms(
  terms: readonly QueryTerm[],
  weigh: WeighPort,
): { weighed: WeighedTerm[]; live: number; dfKnown: boolean; degraded: Degradation[] } {
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
    // An everyday coding word is none of a topic's names, however the notes capitalise it ("Config",
    // "Repo"): it would make every note that says it specific to the prompt.
    const proper = Boolean(t.proper) && !everyday;
    const own = proper ? 1 : Math.min(info?.get(t.stem) ?? 0.5, everyday ? GENERIC_INFO : 1);
    // The words of a path ("internal/ingest/v2") name one place: together they weigh as one word,
    // so a note that names the same folder is not taken for one about the problem, and a note
    // that does not name it is not held to lack three specific words.
    const w = t.pathWords ? own / t.pathWords : own;
    // Rarity in this KB is not enough to be specific: measured, counting words in ≤ 5 % of the notes
    // as specific let 14 % of everyday prompts through (against 2.5 %).
    return { ...t, proper, info: w, df: df ? (df.get(t.stem) ?? 0) : 1, specific: proper || w >= SPECIFIC_INFO, everyday };
  });
  return { weighed, live: Math.max(1, live), dfKnown: df !== null, degraded };
}

/**
 * The everyday-English weights of the given stems, from the word counts only (no index read); null
 * when there are none to weigh or the counts cannot be read (the caller then says what it assumes).
 */
export function everydayWeights(stems: readonly string[], weigh: WeighPort): ReadonlyMap<string, number> | null {
  if (!stems.length) return null;
  try {
    const w = weigh(stems, { infoOnly: true });
    return w.info instanceof Error ? null : w.info;
  } catch {
    return null;
  }
}

/**
 * Marks, on each term, the prefixes through which a note may not contain it: those that are words of
 * their own in everyday English (weight under SPECIFIC_INFO: "paint", "fail", "part", "take"). A note
 * word stands for a longer query word when it abbreviates it ("auth", "repo", "perf", "init", all rare
 * in everyday English); an everyday word that happens to start it ("paint" of "paintball", "fail" of
 * "failover") is another word; so is the leading word of a camelCase identifier ("tenant" of
 * "tenantCfg", QueryTerm.components). Only the in-memory word counts are read (no index lookup);
 * when they are unavailable every everyday prefix counts, as before.
 */
export function everydayPrefixes(weighed: readonly WeighedTerm[], weigh: WeighPort): WeighedTerm[] {
  const prefixes = weighed.map((t) => abbreviationCandidates(t.stem));
  const info = everydayWeights([...new Set(prefixes.flat())], weigh);
  return weighed.map((t, i) => {
    // An identifier's leading words ("tenant" of "tenantCfg") are not abbreviations of it either;
    // they hold whether or not the word counts could be read.
    const common = [...(info ? prefixes[i]!.filter((p) => (info.get(p) ?? 1) < SPECIFIC_INFO) : []), ...(t.components ?? [])];
    return common.length ? { ...t, notVia: new Set(common) } : t;
  });
}

/** Most word forms looked up per query by widenToMatches (as many as a query has terms). */
export const MAX_WIDENED_FORMS = 64;

/**
 * Document frequencies as the estimate matches words. A note "contains" a query word through an
 * abbreviation or a slightly longer stem too ("authent" through "auth", "config" through "configur"),
 * but the index counts exact stems only: "config" may be in two notes while "configur" is in half of
 * them. Counted exactly, such a word looks rare in the KB (a high rarity weight), and a note that
 * matches it through "configur" would be credited with evidence the query barely has. So a term's
 * document frequency becomes the largest of its own and those of the stems through which the given
 * notes contain it (a lower bound on the notes that contain it the estimate's way).
 *
 * Only the forms in the given notes (the scoring window) are looked up, at most MAX_WIDENED_FORMS in
 * the query's word order. Nothing is looked up when the exact counts were unavailable (`dfKnown`
 * false: every term already counts as present). Failure to look the forms up leaves the exact counts
 * (recorded as a degradation).
 */
export function widenToMatches(
  weighed: readonly WeighedTerm[],
  notes: readonly NoteTerms[],
  weigh: WeighPort,
  dfKnown = true,
): { weighed: WeighedTerm[]; degraded: Degradation[] } {
  if (!dfKnown) return { weighed: [...weighed], degraded: [] };
  const via = new Map<string, Set<string>>();
  for (const t of weighed)
    for (const n of notes) {
      const m = matchedStem(n, t.stem, t.notVia);
      if (m !== undefined && m !== t.stem) via.set(t.stem, (via.get(t.stem) ?? new Set()).add(m));
    }
  if (!via.size) return { weighed: [...weighed], degraded: [] };
  let df: ReadonlyMap<string, number>;
  try {
    // Bounded: a KB written to match every query word through a different form in every note must
    // not turn one lookup into thousands (a form left out counts as in no note: the exact count stays).
    const w = weigh([...new Set([...via.values()].flatMap((s) => [...s]))].slice(0, MAX_WIDENED_FORMS));
    if (w.df instanceof Error) throw w.df;
    df = w.df;
  } catch (err) {
    const message = `document frequencies of matched word forms unavailable: ${(err as Error).message}`;
    return { weighed: [...weighed], degraded: [{ stage: 'relevance', reason: 'error', message }] };
  }
  return {
    weighed: weighed.map((t) => {
      const forms = via.get(t.stem);
      return forms ? { ...t, df: Math.max(t.df, ...[...forms].map((s) => df.get(s) ?? 0)) } : t;
    }),
    degraded: [],
  };
}

/**
 * A name that many notes of the KB carry does not make a note about a query whose subject the KB has
 * never seen. When some of the query's specific words are in no note ("veterans", "Seattle") and the
 * only specific words the KB does know are such hub names (a conversation's speaker "John", in more
 * than a quarter of the notes and at least ten: isLabel), the question is about someone else's
 * John: a note that shares just the name with it is not about it. Those names then stop counting as
 * specific, so a note needs a specific word of its own or a specific pair (see relevanceFeatures).
 *
 * Unchanged when the KB knows another specific word of the query, a name it mentions less often
 * ("how do I size the Postgres Pool for Gunicorn" on a KB where a few notes name Postgres: capitals
 * mark tools as often as people), or when the document frequencies could not be read (every term
 * then counts as present).
 */
export function namesAloneUnspecific(weighed: readonly WeighedTerm[], live: number): WeighedTerm[] {
  const specific = weighed.filter((t) => t.specific);
  const unknown = specific.some((t) => t.df === 0);
  const known = specific.filter((t) => t.df > 0);
  const hub = (t: WeighedTerm): boolean => t.proper && isLabel(t, live);
  if (!unknown || known.length === 0 || !known.every(hub)) return [...weighed];
  return weighed.map((t) => (t.df > 0 && hub(t) ? { ...t, specific: false } : t));
}

/** Characters of a note read for the names of the query (as much as the relevance estimate reads). */
const NAME_TEXT_CHARS = 20_000;

/**
 * The query's terms with `proper` (a name) decided by the notes, not by the prompt's capitals
 * ("Merge freeze Friday" and "merge freeze friday" ask the same thing): a word the notes use is a
 * name when they write it as one (core/stems.ts: namesInTexts; tags left out, as they are lower-case
 * labels by convention); a word no note uses is a name when everyday English writes it as one
 * (the word counts: "Friday", "Caroline"). Word counts that cannot be read name nothing.
 */
export function namedTerms(terms: readonly QueryTerm[], notes: readonly Note[], weigh: WeighPort): QueryTerm[] {
  const unique = notes.filter((n, i) => notes.indexOf(n) === i);
  const { names, seen } = namesInTexts(
    unique.map((n) => `${n.title}\n${n.keyInsight}\n${n.body}`),
    new Set(terms.map((t) => t.word)),
    NAME_TEXT_CHARS,
  );
  let english: ReadonlySet<string> = new Set();
  try {
    english =
      weigh(
        terms.map((t) => t.stem),
        { infoOnly: true },
      ).names ?? english;
  } catch {
    // No word counts: only the notes name anything.
  }
  const isName = (t: QueryTerm): boolean => (seen.has(t.word) ? names.has(t.word) : english.has(t.stem));
  return terms.map((t) => (t.proper === isName(t) ? t : { ...t, proper: isName(t) }));
}
