/**
 * The absolute relevance estimate: how likely a note is about the query, on a 0..1 scale that does
 * not depend on what else was retrieved (unlike a score divided by the list's best). Pure.
 *
 * Without a cross-encoder it is a logistic model over four lexical features, each about how much of
 * the query's *specific* information the note carries:
 *
 *   kbCoverage     share of the query's weight the note contains, each term weighted by its inverse
 *                  document frequency in this KB (BM25's idf);
 *   infoCoverage   the same with each term weighted by how much it says in everyday English
 *                  (word-info.ts: "waiting" little, "kafka" much; a capitalised name counts fully);
 *   titleCoverage  share of the note's title words that the query uses (titles name the problem);
 *   noteMissing    the largest everyday-English weight among query terms the note lacks: a note
 *                  about Kafka that never says "rebalancing" is probably not about the question.
 *
 * A term matches a note word with the same Porter stem, or when one stem is a prefix of the other
 * (four characters at least: "auth" ~ "authenticate").
 *
 * The coefficients are fitted by `npm run calibrate` (scripts/calibrate.ts) on labelled sets: the
 * golden set, its abstention prompts, five LoCoMo conversations (and each one's questions asked of
 * the other four), and the example KB's prompts. Positives are notes labelled relevant; negatives are
 * what off-topic queries retrieve. Each set weighs the same. Leave-one-set-out figures are printed
 * by that script and kept in the README.
 *
 * With a cross-encoder, the relevance of a rescored note is sigmoid(logit) instead: ms-marco
 * cross-encoders are trained with a binary cross-entropy objective, so that is already a probability.
 */
import { sigmoid } from './boosts.js';
import type { RelevanceFeatures } from '../../core/types.js';

export type { RelevanceFeatures };

/** The features the model weighs (maxCovered and coveredInfo serve the specific-word gate and explain). */
export type ModelFeature = 'kbCoverage' | 'infoCoverage' | 'titleCoverage' | 'noteMissing';
export const FEATURE_NAMES: readonly ModelFeature[] = ['kbCoverage', 'infoCoverage', 'titleCoverage', 'noteMissing'];

export interface RelevanceModel {
  bias: number;
  weights: Record<ModelFeature, number>;
}

/**
 * Fitted by `npm run calibrate` (see the module comment); paste its output here after a change to
 * the features or the labelled sets, and update the README's figures.
 */
export const RELEVANCE_MODEL: RelevanceModel = {
  bias: -1.43,
  weights: { kbCoverage: 5.03, infoCoverage: 1.89, titleCoverage: 3.11, noteMissing: -2.6 },
};

/** One query term as the estimate sees it. */
export interface WeightedTerm {
  stem: string;
  /** Weight in everyday English, 0..1 (1 for names). */
  info: number;
  /** Live notes of the KB containing the term. */
  df: number;
  /** Whether the word pins a topic down on its own (see estimate-relevance.ts); absent = info ≥ 0.6. */
  specific?: boolean;
  /** A word every coding conversation uses ("code", "tests"): never part of a specific combination. */
  everyday?: boolean;
}

/**
 * Words that are not specific alone can be together ("merge freeze before the friday release"): a
 * note containing non-everyday query words of at least MID_INFO each, worth PAIR_INFO together, has
 * something specific of the query.
 */
export const MID_INFO = 0.5;
export const PAIR_INFO = 1.1;

/** Shortest note stem that may stand for a longer query word ("auth" for "authenticate"). */
export const MIN_PREFIX_CHARS = 4;
/**
 * A query word may match a longer note word when it is at least this long and the note word adds
 * at most MAX_EXTENSION_CHARS: "config" ~ "configuration" (stem "configur"), but "post" is not
 * "postgres" and "java" is not "javascript".
 */
export const MIN_EXTENDED_CHARS = 5;
export const MAX_EXTENSION_CHARS = 3;

/** A note's stems, as a set and sorted (to find stems that start with a given prefix). */
export interface NoteTerms {
  set: ReadonlySet<string>;
  sorted: readonly string[];
}

export function noteTerms(stems: Iterable<string>): NoteTerms {
  const set = stems instanceof Set ? (stems as Set<string>) : new Set(stems);
  return { set, sorted: [...set].sort() };
}

/**
 * Whether the note contains the term: the same stem; or a note stem of MIN_PREFIX_CHARS or more
 * that the query stem starts with (notes abbreviate: "auth", "env", "repo" for "authenticate",
 * "environment", "repository"); or a note stem that extends a query stem of MIN_EXTENDED_CHARS or
 * more by at most MAX_EXTENSION_CHARS ("config" for "configuration").
 */
export function containsTerm(note: NoteTerms, stem: string): boolean {
  if (note.set.has(stem)) return true;
  // A note stem that is a prefix of the query stem ("auth" of "authent").
  for (let n = stem.length - 1; n >= MIN_PREFIX_CHARS; n -= 1) if (note.set.has(stem.slice(0, n))) return true;
  if (stem.length < MIN_EXTENDED_CHARS) return false;
  // A note stem that starts with the query stem ("configur" for "config"): the sorted stems ≥ it.
  let lo = 0;
  let hi = note.sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (note.sorted[mid]! < stem) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < note.sorted.length && note.sorted[i]!.startsWith(stem); i += 1) {
    if (note.sorted[i]!.length - stem.length <= MAX_EXTENSION_CHARS) return true;
  }
  return false;
}

/** BM25's idf, always positive: ln((N − df + 0.5) / (df + 0.5) + 1). */
export function idf(df: number, live: number): number {
  const n = Math.max(live, df, 0);
  return Math.log((n - df + 0.5) / (df + 0.5) + 1);
}

/**
 * Features of one note for a query.
 * @param terms the query's terms (empty → all features 0)
 * @param noteStems stems of the note's text (see noteTerms)
 * @param titleStems stems of the note's title words (function words removed)
 * @param live live notes in the KB
 */
export function relevanceFeatures(
  terms: readonly WeightedTerm[],
  noteStems: NoteTerms,
  titleStems: ReadonlySet<string>,
  live: number,
): RelevanceFeatures {
  let k = 0;
  let kTotal = 0;
  let b = 0;
  let bTotal = 0;
  let noteMissing = 0;
  let maxCovered = 0;
  let specificCovered = 0;
  let midMass = 0;
  let titleHits = 0;
  const stems = new Set<string>();
  for (const t of terms) {
    stems.add(t.stem);
    const w = idf(t.df, live);
    kTotal += w;
    bTotal += t.info;
    if (containsTerm(noteStems, t.stem)) {
      k += w;
      b += t.info;
      maxCovered = Math.max(maxCovered, t.info);
      if (t.specific ?? t.info >= 0.6) specificCovered = 1;
      else if (!t.everyday && t.info >= MID_INFO) midMass += t.info;
    } else noteMissing = Math.max(noteMissing, t.info);
  }
  for (const s of titleStems) if (stems.has(s)) titleHits += 1;
  return {
    kbCoverage: kTotal > 0 ? k / kTotal : 0,
    infoCoverage: bTotal > 0 ? b / bTotal : 0,
    titleCoverage: titleStems.size > 0 ? titleHits / titleStems.size : 0,
    noteMissing,
    maxCovered,
    coveredInfo: Math.min(b, 3) / 3,
    specificCovered: specificCovered || midMass >= PAIR_INFO ? 1 : 0,
  };
}

/** Each feature's share of the logit (for `explain` and `trace`). */
export function contributions(f: RelevanceFeatures, model: RelevanceModel = RELEVANCE_MODEL): Record<ModelFeature, number> {
  return {
    kbCoverage: model.weights.kbCoverage * f.kbCoverage,
    infoCoverage: model.weights.infoCoverage * f.infoCoverage,
    titleCoverage: model.weights.titleCoverage * f.titleCoverage,
    noteMissing: model.weights.noteMissing * f.noteMissing,
  };
}

/** P(relevant) from the features. */
export function lexicalRelevance(f: RelevanceFeatures, model: RelevanceModel = RELEVANCE_MODEL): number {
  const c = contributions(f, model);
  return sigmoid(model.bias + FEATURE_NAMES.reduce((sum, f) => sum + c[f], 0));
}

/**
 * A query whose only specific content is its date phrase ("what changed last week") asks for the
 * notes of that window: below this information weight every remaining word is generic.
 */
export const GENERIC_INFO = 0.5;
/** Relevance given to a note dated inside the window of such a query. */
export const WINDOW_MATCH_RELEVANCE = 0.75;
