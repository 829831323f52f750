/**
 * The absolute evidence a note gives of a query, for the relevance estimate (estimate-relevance.ts):
 * how much of the query's weight it carries, whether its summary holds it, the query's phrases it
 * repeats, how far it stands out from the other candidates, and the phrases its title repeats. Pure
 * apart from the word-count lookup of the `weigh` port.
 */
import type { WeighedTerm } from '../core/state.js';
import type { Candidate } from '../core/types.js';
import {
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
import { textStemPairs } from '../core/stems.js';
import { textMemo } from '../core/text-memo.js';
import { type Note, searchableText } from '../core/note/index.js';
import { everydayWeights, type WeighPort } from './weigh-terms.js';
import { titlePhrases, titleStems } from './title-phrases.js';

/** Characters of a note read for the estimate: a long note is judged by its start. */
export const RELEVANCE_TEXT_CHARS = 20_000;

/** What the evidence reads besides the notes: the word-count port and the query's word sequence. */
export interface EvidenceOptions {
  weigh: WeighPort;
  sequence?: readonly string[];
}

export interface Evidence {
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
export function evidenceOf(
  window: readonly Candidate[],
  stemsOf: ReadonlyMap<string, NoteTerms>,
  weighed: readonly WeighedTerm[],
  live: number,
  opts: EvidenceOptions,
): Map<string, Evidence> {
  const out = new Map<string, Evidence>();
  if (!weighed.length) return out;
  const notes = window.filter((c, i) => window.findIndex((d) => d.note.key === c.note.key) === i);
  const summaries = summaryWeights(new Map(notes.map((c) => [c.note.key, summaryStems(c.note)])), opts.weigh);
  const byStem = new Map(weighed.map((t) => [t.stem, t]));
  const pairs: StemPair[] = queryPairs((opts.sequence ?? weighed.map((t) => t.stem)).filter((s) => byStem.has(s)));
  // Neither word everyday, nor of a path: a path's own phrase ("ingest/v2") names the place again.
  const specificPairs = pairs.filter((pair) => pair.every((st) => !byStem.get(st)!.everyday && !byStem.get(st)!.pathWords));
  const masses: number[] = [];
  for (const c of notes) {
    const terms = stemsOf.get(c.note.key)!;
    // A summary that only the words of a folder the prompt names reach ("ingest … v2" for
    // internal/ingest/v2) is not about the prompt: `about` leaves path words out.
    const { mass, about } = evidenceMass(weighed, terms, live);
    masses.push(mass);
    const notePairs = (): ReadonlySet<string> => notePairsOf(c.note.key, searchableText(c.note));
    const phrases = phraseCount(pairs, byStem, terms, notePairs);
    const specificPhrase = phrases > 0 && phraseCount(specificPairs, byStem, terms, notePairs) > 0;
    out.set(c.note.key, {
      evidence: logScale(mass),
      summaryShare: summaryShare(summaries.get(c.note.key)!, about),
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

/** Notes' word pairs and summary stems, kept between recalls (core/text-memo.ts). */
const notePairsOf = textMemo<ReadonlySet<string>>((text) => textStemPairs(text), RELEVANCE_TEXT_CHARS);
const summaryStemsOf = textMemo<ReadonlySet<string>>(titleStems);

/** Stems of a note's summary (title, key insight, tags), function words left out. */
function summaryStems(note: Pick<Note, 'key' | 'title' | 'keyInsight' | 'tags'>): ReadonlySet<string> {
  return summaryStemsOf(note.key, [note.title, note.keyInsight, note.tags.join(' ')].join(' '));
}

/**
 * Everyday-English weights of the summary stems of every note in the window, in one lookup (word
 * counts only, no index read). Unavailable counts weigh every stem 0.5.
 */
function summaryWeights(summaries: ReadonlyMap<string, ReadonlySet<string>>, weigh: WeighPort): Map<string, Map<string, number>> {
  const info = everydayWeights([...new Set([...summaries.values()].flatMap((s) => [...s]))], weigh);
  const out = new Map<string, Map<string, number>>();
  for (const [key, stems] of summaries) out.set(key, new Map([...stems].map((st) => [st, info?.get(st) ?? 0.5])));
  return out;
}
