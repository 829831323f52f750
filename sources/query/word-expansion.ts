/**
 * Related words from WordNet 3.1, for the lexical arm's second, lower-weighted query: synonyms of a
 * word's common senses, similar adjectives, and the direct kinds of its noun senses ("martial art" →
 * judo, karate, taekwondo). Built by scripts/build-wordnet.mjs into `dist/data/wordnet-expand.tsv`
 * (sorted `lemma\trelated …` lines), binary-searched here; without that file there are no expansions
 * (the arm runs on the user's words alone).
 *
 * Words are reduced to WordNet's dictionary forms with its own "morphy" suffix rules (morphy(7WN)):
 * "arts" → "art", "studios" → "studio", "loved" → "love", so a lemma is found whatever the inflection.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDataTable, type SortedTable } from './sorted-table.js';
import { stemOf, type QueryTerm } from '../../core/stems.js';

/** WordNet's detachment rules, all parts of speech together: [suffix, replacement]. */
const MORPHY_RULES: readonly [string, string][] = [
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
  ['es', 'e'],
  ['es', ''],
  ['ed', 'e'],
  ['ed', ''],
  ['ing', 'e'],
  ['ing', ''],
  ['er', ''],
  ['est', ''],
  ['er', 'e'],
  ['est', 'e'],
  ['s', ''],
];

/** Dictionary-form candidates of a lower-case word: itself first, then what the rules detach. */
export function morphy(word: string): string[] {
  const out = [word];
  for (const [suffix, repl] of MORPHY_RULES) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix)) {
      const base = word.slice(0, word.length - suffix.length) + repl;
      if (!out.includes(base)) out.push(base);
    }
  }
  return out;
}

let table: SortedTable | null | undefined;

function wordnet(): SortedTable | null {
  if (table !== undefined) return table;
  table = openDataTable(path.dirname(fileURLToPath(import.meta.url)), 'wordnet-expand.tsv');
  return table;
}

/** Whether the expansion table could be read (a missing table is a degradation, not an error). */
export function expansionsAvailable(): boolean {
  return wordnet() !== null;
}

/** Words WordNet relates to a lemma ('' when none), trying each dictionary form of the word. */
export function relatedWords(word: string): string[] {
  const t = wordnet();
  if (!t) return [];
  for (const form of morphy(word)) {
    const v = t.get(form);
    if (v) return v.split(' ');
  }
  return [];
}

/** Words related to the two-word lemma "first_second" ("martial arts" → martial_art), if WordNet has it. */
export function relatedToPair(first: string, second: string): string[] {
  const t = wordnet();
  if (!t) return [];
  for (const form of morphy(second)) {
    const v = t.get(`${first}_${form}`);
    if (v) return v.split(' ');
  }
  return [];
}

/** Words this common in everyday English are not expanded (their senses are too many to guess from). */
export const EXPAND_MIN_INFO = 0.4;
/** Expansion words per query at most (the second query stays cheap). */
export const MAX_EXPANSIONS = 48;

/**
 * Related words for a query: for each of its content words that is neither a name nor very common,
 * and for each adjacent pair that WordNet knows as one lemma ("martial arts", "ice cream"), the
 * related words; minus the query's own words, deduplicated, at most MAX_EXPANSIONS, pairs first.
 */
export function expandQuery(terms: readonly QueryTerm[], rawWords: readonly string[], info: (stem: string) => number): string[] {
  const own = new Set(terms.map((t) => t.stem));
  const names = new Set(terms.filter((t) => t.proper).map((t) => t.word));
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (words: readonly string[]): void => {
    for (const w of words) {
      if (out.length >= MAX_EXPANSIONS) return;
      if (!/^[a-z0-9][a-z0-9'-]*$/.test(w)) continue;
      const stem = stemOf(w);
      if (own.has(stem) || seen.has(stem)) continue;
      seen.add(stem);
      out.push(w);
    }
  };
  for (let i = 0; i + 1 < rawWords.length; i += 1) {
    if (names.has(rawWords[i]!) || names.has(rawWords[i + 1]!)) continue;
    push(relatedToPair(rawWords[i]!, rawWords[i + 1]!));
  }
  for (const t of terms) if (!t.proper && info(t.stem) >= EXPAND_MIN_INFO) push(relatedWords(t.word));
  return out;
}
