/**
 * Title phrases: how much of the query's phrasing each note's title repeats, for the ranking
 * (apply-boosts.ts multiplies 1 + TITLE_PHRASE_WEIGHT × the share; see titlePhraseShare in
 * operators/math/evidence.ts). A title names the problem: "transaction pooling" in a title says
 * more than the same two words in a body or an entity graph, where the relevance estimate (which
 * saturates near 1 once a note has every query word) cannot tell the notes apart.
 *
 * Two kinds of title word say nothing of the kind, and do not count:
 * - a label of the KB: a word that heads many titles ("John: …" in a conversation, "Postmortem: …").
 *   It is a query word isLabel calls one (many notes contain it) that is also in more than
 *   TITLE_LABEL_SHARE of the candidates' titles: "only" is in a third of the example KB's notes but
 *   in one title ("Jest fails on ESM-only packages"), and is no label there;
 * - an excerpt: a title cut from the note's opening sentence (a conversation's turn, an imported
 *   message) repeats the body, whose phrases the relevance estimate already counts. Measured on the
 *   LoCoMo conversations, counting such titles lowered MRR from 0.533 to 0.523 (recall@10 unchanged).
 * Pure; reads the candidates' titles and bodies, nothing of the index.
 */
import {
  isLabel,
  MIN_LABEL_NOTES,
  noteTerms,
  TITLE_LABEL_SHARE,
  titlePhraseShare,
  type StemPair,
  type WeightedTerm,
} from './math/index.js';
import { stemOf, textStemPairs } from '../core/stems.js';
import { STOPWORDS } from '../core/terms.js';
import { memoryNameWords, type Note } from '../core/note/index.js';

/** Stems of a title's words, function words and one-letter words left out. */
export function titleStems(title: string): Set<string> {
  const out = new Set<string>();
  for (const w of title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    out.add(stemOf(w));
  }
  return out;
}

/** Characters of the body's start searched for the title's words (an excerpt title copies the start). */
export const EXCERPT_CHARS = 1_000;
/** Fewer title words than this are no evidence of copying ("Hi John" is in many a turn). */
export const EXCERPT_MIN_WORDS = 3;

const words = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Whether the title is the start of a longer line of the body: its words (after a "Label: " heading)
 * stand together inside a body line that says more. A body that opens with the title as a heading
 * line of its own ("# pgbouncer transaction pooling …") is a titled note, not an excerpt.
 */
export function isExcerptTitle(title: string, body: string): boolean {
  const colon = title.indexOf(': ');
  const t = words(colon >= 0 ? title.slice(colon + 2) : title);
  if (t.length < EXCERPT_MIN_WORDS) return false;
  const needle = ` ${t.join(' ')} `;
  return body
    .slice(0, EXCERPT_CHARS)
    .split('\n')
    .some((line) => {
      const w = words(line);
      return w.length > t.length && ` ${w.join(' ')} `.includes(needle);
    });
}

/**
 * Each note's share of the query's phrases (`pairs`, adjacent content-word stems) that its title
 * repeats, by note key; labels and excerpt titles as the module comment says.
 */
export function titlePhrases(
  notes: readonly Pick<Note, 'key' | 'title' | 'body'>[],
  pairs: readonly StemPair[],
  terms: ReadonlyMap<string, WeightedTerm>,
  live: number,
): Map<string, number> {
  const out = new Map<string, number>();
  if (!pairs.length) return out;
  const titles = notes.map((n) => noteTerms(titleStems(n.title)));
  const heads = TITLE_LABEL_SHARE * Math.max(notes.length, MIN_LABEL_NOTES);
  const labels = new Set<string>();
  for (const t of terms.values()) if (isLabel(t, live) && titles.filter((s) => s.set.has(t.stem)).length > heads) labels.add(t.stem);
  notes.forEach((n, i) => {
    const share = titlePhraseShare(
      pairs,
      terms,
      titles[i]!,
      () => textStemPairs(n.title),
      (t) => labels.has(t.stem),
    );
    // The body is read only for a title that repeats a phrase (most titles repeat none).
    out.set(n.key, share > 0 && isExcerptTitle(n.title, n.body) ? 0 : share);
  });
  return out;
}

/**
 * Words of a Claude Code memory's name (its subject: "commit-message-format") that a query must use
 * for the memory to count as specifically about it, although each word alone is an everyday one
 * ("commit it with a decent message"). One shared word is not enough: `commit()` on a manifest writer
 * is no commit message.
 */
export const NAME_WORDS_SPECIFIC = 2;

/**
 * The share of a memory's name words the query uses, and whether it uses NAME_WORDS_SPECIFIC of them
 * (exact stems: a name is short, and a prefix of one of its words is no use of it). 0 for other notes.
 */
export function nameCoverage(note: Pick<Note, 'frontmatter'>, queryStems: ReadonlySet<string>): { share: number; specific: boolean } {
  const words = memoryNameWords(note.frontmatter);
  if (!words) return { share: 0, specific: false };
  const stems = titleStems(words);
  let used = 0;
  for (const s of stems) if (queryStems.has(s)) used += 1;
  return { share: stems.size ? used / stems.size : 0, specific: used >= NAME_WORDS_SPECIFIC };
}
