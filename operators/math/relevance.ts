/**
 * The absolute relevance estimate: how likely a note is about the query, on a 0..1 scale that does
 * not depend on what else was retrieved (unlike a score divided by the list's best). Pure.
 *
 * Without a cross-encoder it is a logistic model over eight lexical features: the four shares below,
 * each about how much of the query's *specific* information the note carries, and four absolute
 * amounts of evidence (evidence, summaryShare, phrases, standout; see evidence.ts), which do not
 * shrink as the prompt grows or the note shrinks:
 *
 *   kbCoverage     share of the query's weight the note contains, each term weighted by its inverse
 *                  document frequency in this KB (BM25's idf);
 *   infoCoverage   the same with each term weighted by how much it says in everyday English
 *                  (sources/query/word-info.ts: "waiting" little, "kafka" much; a capitalised name counts fully);
 *   titleCoverage  share of the note's title words that the query uses (titles name the problem),
 *                  the KB's label words left out (a speaker heading every turn; see titleCoverages);
 *   noteMissing    the largest everyday-English weight among query terms the note lacks: a note
 *                  about Kafka that never says "rebalancing" is probably not about the question.
 *
 * A term matches a note word with the same Porter stem, or a prefix stem of four characters or more ("auth" ~ "authenticate").
 *
 * The coefficients are fitted by `npm run calibrate` (scripts/calibrate.ts, calibrate-fit.ts) on
 * every labelled set: the golden set, its abstention prompts, the example KB's prompts, the prompt
 * sets of both KBs, the title phrases, five LoCoMo conversations (and each one's questions asked of
 * the other four). The fit is per query (an on-topic query should return a relevant note, an
 * off-topic one nothing), each family weighing the same. Leave-one-set-out figures are printed by
 * that script and kept in the README.
 * With a cross-encoder, a rescored note's relevance is sigmoid(logit) instead: ms-marco cross-encoders
 * are trained with binary cross-entropy, so that is already a probability.
 */
import type { NoteTerms } from '../../core/stems.js';
import { sigmoid } from './boosts.js';
import type { RelevanceFeatures } from '../../core/types.js';

export type { RelevanceFeatures };

/** The features the model weighs (maxCovered and coveredInfo serve the specific-word gate and explain). */
export const FEATURE_NAMES = [
  'kbCoverage',
  'infoCoverage',
  'titleCoverage',
  'noteMissing',
  'evidence',
  'summaryShare',
  'phrases',
  'standout',
] as const;
export type ModelFeature = (typeof FEATURE_NAMES)[number];

export interface RelevanceModel {
  bias: number;
  weights: Record<ModelFeature, number>;
}

/**
 * Fitted by `npm run calibrate` (see the module comment); paste its output here after a change to
 * the features or the labelled sets, and update the README's figures.
 */
export const RELEVANCE_MODEL: RelevanceModel = {
  bias: -1.5,
  weights: {
    kbCoverage: 2.57,
    infoCoverage: 3.3,
    titleCoverage: 1.88,
    noteMissing: -3.55,
    evidence: 0.91,
    summaryShare: 2.35,
    phrases: 0.88,
    standout: 1.01,
  },
};

/** One query term as the estimate sees it. */
export interface WeightedTerm {
  stem: string;
  /** Weight in everyday English, 0..1 (1 for names). */
  info: number;
  /** Live notes of the KB containing the term. */
  df: number;
  /** Whether the word pins a topic down on its own (see weigh-terms.ts); absent = info ≥ 0.6. */
  specific?: boolean;
  /** A word every coding conversation uses ("code", "tests"): never part of a specific combination. */
  everyday?: boolean;
  /**
   * Prefixes of the stem that are words of their own in everyday English ("paint" of "paintball"):
   * a note containing one does not contain this term (see matchedStem).
   */
  notVia?: ReadonlySet<string>;
  /** For a word the prompt uses only inside file paths, the path's word count (core/stems.ts QueryTerm.pathWords). */
  pathWords?: number;
  /**
   * A name. A name that is not specific (weigh-terms.ts: namesAloneUnspecific) is never part of a
   * specific combination either: it would make every note that says it "specific" again.
   */
  proper?: boolean;
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
/** Longest note stem that may stand for a longer query word: an abbreviation is short. */
export const MAX_ABBREVIATION_CHARS = 16;
/**
 * A query word may match a longer note word when it is at least this long and the note word adds
 * at most MAX_EXTENSION_CHARS: "config" ~ "configuration" (stem "configur"), but "post" is not
 * "postgres" and "java" is not "javascript".
 */
export const MIN_EXTENDED_CHARS = 5;
export const MAX_EXTENSION_CHARS = 3;

/**
 * A query word that more than this share of the KB's notes contain is a label when it is in a title:
 * the speaker that heads every turn of a conversation ("John: …"), a "Postmortem:" prefix. Measured on
 * the labelled sets: 0.25, 0.3 and 0.5 give the same figures; at 0.2 a word of the golden KB that
 * heads a fifth of its titles counts as a label and an on-topic abstention prompt loses its note.
 */
export const TITLE_LABEL_SHARE = 0.25;
/**
 * And in at least this many notes: in a small KB a quarter of the notes is a handful, which one topic
 * fills (a word in 1 of 3 notes is no label).
 */
export const MIN_LABEL_NOTES = 10;

/** Whether a query term is a label word of the KB when a title holds it (see titleCoverages). */
export function isLabel(t: WeightedTerm, live: number): boolean {
  return t.df > TITLE_LABEL_SHARE * live && t.df >= MIN_LABEL_NOTES;
}

// A note's stems live in core (the recall state carries them); the math here reads them.
export { type NoteTerms, noteTerms } from '../../core/stems.js';

/**
 * Whether the note contains the term: the same stem; or a note stem of MIN_PREFIX_CHARS or more
 * that the query stem starts with (notes abbreviate: "auth", "env", "repo" for "authenticate",
 * "environment", "repository"); or a note stem that extends a query stem of MIN_EXTENDED_CHARS or
 * more by at most MAX_EXTENSION_CHARS ("config" for "configuration").
 */
export function containsTerm(note: NoteTerms, stem: string, notVia?: ReadonlySet<string>): boolean {
  return matchedStem(note, stem, notVia) !== undefined;
}

/**
 * The note stem by which the note contains the term (see containsTerm), or undefined. A prefix in
 * `notVia` does not count: an everyday word ("paint") is not an abbreviation of a longer one
 * ("paintball") the way "auth" is of "authenticate".
 */
export function matchedStem(note: NoteTerms, stem: string, notVia?: ReadonlySet<string>): string | undefined {
  if (note.set.has(stem)) return stem;
  // A note stem that is a prefix of the query stem ("auth" of "authent"), of MAX_ABBREVIATION_CHARS at
  // most: a pasted 20 000-character token would otherwise cost 20 000 slices per note. (The bounds
  // of abbreviationCandidates, walked here without building the list: this runs per term and note.)
  for (let n = Math.min(stem.length - 1, MAX_ABBREVIATION_CHARS); n >= MIN_PREFIX_CHARS; n -= 1)
    if (note.set.has(stem.slice(0, n)) && !notVia?.has(stem.slice(0, n))) return stem.slice(0, n);
  if (stem.length < MIN_EXTENDED_CHARS) return undefined;
  // A note stem that starts with the query stem ("configur" for "config"): the sorted stems ≥ it.
  let lo = 0;
  let hi = note.sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (note.sorted[mid]! < stem) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < note.sorted.length && note.sorted[i]!.startsWith(stem); i += 1) {
    if (note.sorted[i]!.length - stem.length <= MAX_EXTENSION_CHARS) return note.sorted[i];
  }
  return undefined;
}

/**
 * The prefixes of a query stem that matchedStem tries as abbreviations, longest first (the same bounds:
 * MIN_PREFIX_CHARS to MAX_ABBREVIATION_CHARS, shorter than the stem).
 */
export function abbreviationCandidates(stem: string): string[] {
  const out: string[] = [];
  for (let n = Math.min(stem.length - 1, MAX_ABBREVIATION_CHARS); n >= MIN_PREFIX_CHARS; n -= 1) out.push(stem.slice(0, n));
  return out;
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
  const stems = new Set<string>();
  for (const t of terms) {
    stems.add(t.stem);
    const w = idf(t.df, live);
    kTotal += w;
    bTotal += t.info;
    if (containsTerm(noteStems, t.stem, t.notVia)) {
      k += w;
      b += t.info;
      maxCovered = Math.max(maxCovered, t.info);
      if (t.specific ?? t.info >= 0.6) specificCovered = 1;
      else if (!t.everyday && !t.proper && t.info >= MID_INFO) midMass += t.info;
    } else noteMissing = Math.max(noteMissing, t.info);
  }
  const title = titleCoverages(titleStems, stems, new Set(terms.filter((t) => isLabel(t, live)).map((t) => t.stem)));
  return {
    kbCoverage: kTotal > 0 ? k / kTotal : 0,
    infoCoverage: bTotal > 0 ? b / bTotal : 0,
    titleCoverage: title.withoutLabels,
    titleWithLabels: title.withLabels,
    noteMissing,
    maxCovered,
    coveredInfo: Math.min(b, 3) / 3,
    specificCovered: specificCovered || midMass >= PAIR_INFO ? 1 : 0,
    // Filled by the relevance stage (operators/math/evidence.ts): they need the note's summary,
    // its phrases and the other candidates.
    evidence: 0,
    summaryShare: 0,
    phrases: 0,
    standout: 0,
  };
}

/**
 * Share of the note's title words that the query uses, counted twice: with every title word, and
 * without the query's label words (TITLE_LABEL_SHARE). A label says which notes of this KB a query is
 * nearer (John's turns for a question about John) but not whether the KB is about the query at all:
 * another conversation's John heads his own turns too. So the absolute relevance (what the floors
 * compare) leaves labels out, and the ranking counts them (see RelevanceEstimate.ranking). Only the
 * query's words can be recognised as labels: theirs are the document frequencies the estimate reads.
 */
function titleCoverages(
  titleStems: ReadonlySet<string>,
  queryStems: ReadonlySet<string>,
  labels: ReadonlySet<string>,
): { withLabels: number; withoutLabels: number } {
  let hits = 0;
  let labelHits = 0;
  let labelWords = 0;
  for (const s of titleStems) {
    const hit = queryStems.has(s);
    if (hit) hits += 1;
    if (labels.has(s)) {
      labelWords += 1;
      if (hit) labelHits += 1;
    }
  }
  const rest = titleStems.size - labelWords;
  return {
    withLabels: titleStems.size > 0 ? hits / titleStems.size : 0,
    withoutLabels: rest > 0 ? (hits - labelHits) / rest : 0,
  };
}

/** Each feature's share of the logit (for `explain` and `trace`). */
export function contributions(f: RelevanceFeatures, model: RelevanceModel = RELEVANCE_MODEL): Record<ModelFeature, number> {
  const out = {} as Record<ModelFeature, number>;
  for (const name of FEATURE_NAMES) out[name] = (model.weights[name] ?? 0) * (f[name] ?? 0);
  return out;
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
