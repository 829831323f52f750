/**
 * Absolute evidence that a note is about a query: what the note matches, counted in amounts that do
 * not shrink as the prompt grows or the note shrinks. Pure.
 *
 * The coverage features of relevance.ts are shares: of the prompt's weight, of the title's words. A
 * 60-word prompt always carries words a one-line note lacks, so its share falls however well the
 * note answers it. These features count instead:
 *
 *   evidence       the specific matter the note matches: each matched query word weighs its
 *                  everyday-English information times its rarity in this KB (idf over the largest
 *                  idf the KB can have), summed, on a log scale (ln(1 + sum)): two rare words a
 *                  note shares with the prompt are the same evidence in a 10-word and in a 60-word
 *                  prompt;
 *   summaryShare   the share of the note's own summary (title, key insight, tags), weighted by
 *                  everyday-English information, that the query's words match: the note side of the
 *                  match, which a one-line note fills with a few words;
 *   phrases        query word pairs (adjacent content words) that stand next to each other in the
 *                  note too: "connection pool", "state lock" are specific together though neither
 *                  word is alone (saturated: 1 − e^−count);
 *   standout       how far the note's evidence stands above the rest of the candidates for this
 *                  prompt (its evidence minus the mean of the others): a prompt about nothing the KB
 *                  holds matches a word or two in many notes alike; a prompt about one note matches
 *                  that note far more than the rest (ln(1 + difference), 0 when not above).
 */
import { idf, matchedStem, type NoteTerms, type WeightedTerm } from './relevance.js';

/** One adjacent pair of query content words, by stem, in prompt order. */
export type StemPair = readonly [string, string];

export interface EvidenceFeatures {
  evidence: number;
  summaryShare: number;
  phrases: number;
  /** Filled by standouts() once every candidate's evidence is known; 0 until then. */
  standout: number;
}

/** Weight of one query term as evidence: everyday-English information times rarity in this KB. */
export function termEvidence(t: WeightedTerm, live: number): number {
  const top = idf(0, live);
  return top > 0 ? t.info * (idf(t.df, live) / top) : t.info;
}

/**
 * The raw (unsaturated) evidence sum: what standout compares across candidates; the note stems the
 * query's words matched, and those matched by a word the prompt uses outside file paths (`about`:
 * a folder says where the work is, not what it is about; see QueryTerm.pathWords).
 */
export function evidenceMass(
  terms: readonly WeightedTerm[],
  note: NoteTerms,
  live: number,
): { mass: number; matched: Set<string>; about: Set<string> } {
  let mass = 0;
  const matched = new Set<string>();
  const about = new Set<string>();
  for (const t of terms) {
    const via = matchedStem(note, t.stem, t.notVia);
    if (via === undefined) continue;
    mass += termEvidence(t, live);
    matched.add(via);
    if (!t.pathWords) about.add(via);
  }
  return { mass, matched, about };
}

/**
 * Share of the summary's information the query matches. `summary` maps each stem of the note's
 * summary to its everyday-English weight; `matched` holds the note stems the query's words matched.
 */
export function summaryShare(summary: ReadonlyMap<string, number>, matched: ReadonlySet<string>): number {
  let all = 0;
  let hit = 0;
  for (const [stem, info] of summary) {
    all += info;
    if (matched.has(stem)) hit += info;
  }
  return all > 0 ? hit / all : 0;
}

/**
 * Adjacent pairs of the query's content words, by stem, in order ("stuck terraform state lock" →
 * terraform·state, state·lock, …). Function words between two content words do not break a pair
 * ("pool of connections" → pool·connect), as they do not in a note's phrase either.
 */
export function queryPairs(stems: readonly string[]): StemPair[] {
  const out: StemPair[] = [];
  const seen = new Set<string>();
  for (let i = 1; i < stems.length; i += 1) {
    const a = stems[i - 1]!;
    const b = stems[i]!;
    if (a === b) continue;
    const k = a < b ? `${a} ${b}` : `${b} ${a}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push([a, b]);
  }
  return out;
}

/** Key of an unordered pair (a phrase matches in either order: "pool exhaustion" ~ "exhausted pool"). */
export const pairKey = (a: string, b: string): string => (a < b ? `${a} ${b}` : `${b} ${a}`);

/**
 * How many of the query's pairs stand next to each other in the note (`notePairs`: keys of the
 * note's adjacent content-stem pairs, see pairKey), each matched word by the note stem it matched.
 */
export function phraseCount(
  pairs: readonly StemPair[],
  terms: ReadonlyMap<string, WeightedTerm>,
  note: NoteTerms,
  notePairs: () => ReadonlySet<string>,
): number {
  let n = 0;
  for (const [a, b] of pairs) {
    const ta = terms.get(a);
    const tb = terms.get(b);
    if (!ta || !tb) continue;
    const va = matchedStem(note, a, ta.notVia);
    if (va === undefined) continue;
    const vb = matchedStem(note, b, tb.notVia);
    if (vb === undefined || va === vb) continue;
    if (notePairs().has(pairKey(va, vb))) n += 1;
  }
  return n;
}

/**
 * Share of the query's phrases that the note's title repeats (`title`: the title's stems, `titlePairs`:
 * its adjacent pairs, see pairKey, built only when the title has both words of a pair). A title names the problem, so "transaction pooling" in a title
 * says more than the same words in a body or an entity graph. A phrase with a label word of the KB
 * (a speaker heading every turn: `label`) does not count, nor one of two everyday coding words
 * ("fix tests"); 0 when the query has no phrase that counts. A share, not a count: one phrase of a
 * 40-word prompt in a title is a small part of what was asked.
 */
export function titlePhraseShare(
  pairs: readonly StemPair[],
  terms: ReadonlyMap<string, WeightedTerm>,
  title: NoteTerms,
  titlePairs: () => ReadonlySet<string>,
  label: (t: WeightedTerm) => boolean,
): number {
  const counted = pairs.filter(([a, b]) => {
    const ta = terms.get(a);
    const tb = terms.get(b);
    return ta && tb && !label(ta) && !label(tb) && !(ta.everyday && tb.everyday);
  });
  return counted.length ? phraseCount(counted, terms, title, titlePairs) / counted.length : 0;
}

export const saturate = (x: number): number => 1 - Math.exp(-x);

/** The log scale of the evidence sums: ln(1 + x), so that a tenth rare word adds less than the second. */
export const logScale = (x: number): number => Math.log1p(Math.max(0, x));

/**
 * Each candidate's evidence above the mean of the others' (raw sums, ln(1 + difference); 0 when it
 * is not above). One candidate alone stands out by its whole evidence.
 */
export function standouts(masses: readonly number[]): number[] {
  const total = masses.reduce((a, b) => a + b, 0);
  const n = masses.length;
  return masses.map((m) => {
    const others = n > 1 ? (total - m) / (n - 1) : 0;
    return logScale(m - others);
  });
}

/** Below this a note's standout says it does not stand out from the other candidates. */
export const WEAK_STANDOUT = 0.3;

/**
 * What evidence a note has and lacks for the query, in words (for an abstention's reason, trace
 * and explain): the specific query words it matches, whether its summary or a phrase of the query
 * matches, whether it stands out from the rest, and the most informative query words it lacks.
 */
export function evidenceInWords(
  f: Pick<EvidenceFeatures, 'summaryShare' | 'phrases' | 'standout'>,
  matchedSpecific: readonly string[],
  missing: readonly string[],
): string {
  const q = (ws: readonly string[]): string => ws.map((w) => `"${w}"`).join(', ');
  if (!matchedSpecific.length) return 'it shares no specific word with the query';
  const parts = [`it shares ${q(matchedSpecific.slice(0, 4))} with the query`];
  const lacking: string[] = [];
  if (f.summaryShare <= 0) lacking.push('its title, key insight and tags match none of it');
  if (f.phrases <= 0) lacking.push('it repeats no word pair of the query');
  if (f.standout < WEAK_STANDOUT) lacking.push('it does not stand out from the other candidates');
  if (missing.length) lacking.push(`it lacks ${q(missing.slice(0, 4))}`);
  return lacking.length ? `${parts[0]}, but ${lacking.join(', ')}` : parts[0]!;
}
