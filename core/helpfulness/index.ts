/**
 * Was an injected note used? A pure, conservative test: the note counts as used when the
 * assistant's text after the injection names the note's id, or repeats a distinctive piece of what
 * the note says (a code-like token such as `idle_in_transaction_session_timeout`, or four consecutive
 * words of its key insight, fix or how-to-apply with at least two topic words in them). Words the
 * user's own prompt already contained do not count: an assistant that echoes the question has not
 * used the note. Paraphrase is not detected, so "not used" means "no trace of it", not "ignored".
 *
 * The clues are computed once, when the note is injected (from the note and the prompt), so the
 * later judgement needs neither the KB nor the prompt.
 */
import { STOPWORDS } from '../terms.js';

/** What a note looks like to the test: its id and the texts whose phrases count as using it. */
export interface UseSource {
  id: string;
  title: string;
  keyInsight: string;
  /** The note's `fix` field ('' when none). */
  fix: string;
  howToApply: string;
}

/** The evidence the judgement looks for, kept with the pending injection. */
export interface UseClues {
  id: string;
  /** Code-like tokens, as written in the note (matched case-insensitively, at word boundaries). */
  tokens: string[];
  /** Word 4-grams, lower-cased and space-joined. */
  phrases: string[];
}

export interface UseVerdict {
  used: boolean;
  /** What the assistant's text had in common with the note (the id, a token or a phrase), or null. */
  evidence: string | null;
  by: 'id' | 'token' | 'phrase' | null;
}

/** Words in a phrase: four keeps a chance match of common wording rare, and still catches a quoted fix. */
export const PHRASE_WORDS = 4;
/** Topic words a phrase needs (of its four), so "it is in the" never counts. */
const MIN_TOPIC_WORDS = 2;
/** Clues kept per note: bounds the state a pending injection stores and the work of a judgement. */
const MAX_PHRASES = 60;
const MAX_TOKENS = 20;
/** Shortest code-like token: shorter ones ("a.b", "v2") occur by chance. */
const MIN_TOKEN_CHARS = 6;

const WORD_RE = /[a-z0-9]+/g;
const TOKEN_RE = /[A-Za-z0-9][A-Za-z0-9_./:-]*[A-Za-z0-9]/g;

function words(text: string): string[] {
  return text.toLowerCase().match(WORD_RE) ?? [];
}

const isTopicWord = (w: string): boolean => w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w);

/** A token that looks like code or configuration: snake_case, a path or dotted name, camelCase, or letters with digits. */
function codeLike(t: string): boolean {
  if (t.length < MIN_TOKEN_CHARS || (t.match(/[A-Za-z]/g) ?? []).length < 3) return false;
  return /[a-z0-9][_./:][a-z0-9]/i.test(t) || /[a-z][A-Z]/.test(t) || (/[a-z]/i.test(t) && /\d/.test(t) && !/^\d/.test(t));
}

/**
 * The clues of one note for one injection. `query` is the prompt the note answered: phrases and
 * tokens made only of its words are left out.
 */
export function useClues(note: UseSource, query: string): UseClues {
  const queryWords = new Set(words(query));
  const texts = [note.keyInsight, note.fix, note.howToApply].filter((t) => t && t.trim());
  const tokens = new Set<string>();
  const phrases = new Set<string>();
  for (const text of texts) {
    for (const t of text.match(TOKEN_RE) ?? []) {
      const parts = words(t);
      if (codeLike(t) && !parts.every((p) => queryWords.has(p)) && tokens.size < MAX_TOKENS) tokens.add(t);
    }
    const ws = words(text);
    for (let i = 0; i + PHRASE_WORDS <= ws.length && phrases.size < MAX_PHRASES; i += 1) {
      const gram = ws.slice(i, i + PHRASE_WORDS);
      const topic = gram.filter(isTopicWord);
      if (topic.length < MIN_TOPIC_WORDS || topic.every((w) => queryWords.has(w))) continue;
      phrases.add(gram.join(' '));
    }
  }
  return { id: note.id, tokens: [...tokens], phrases: [...phrases] };
}

/** Whether `needle` occurs in `hay` (both lower-cased) with no letter or digit right before or after it. */
function occursAsWord(hay: string, needle: string): boolean {
  if (!needle) return false;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    const before = i === 0 ? '' : hay[i - 1]!;
    const after = hay[i + needle.length] ?? '';
    if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return true;
  }
  return false;
}

/** The assistant text prepared once for several notes' judgements: lower-cased, and as its words joined by single spaces. */
export interface PreparedText {
  lower: string;
  /** ` word word … ` (a space at each end), so a phrase is found with one substring search. */
  words: string;
}

export function prepareText(assistantText: string): PreparedText {
  const lower = assistantText.toLowerCase();
  return { lower, words: ` ${(lower.match(WORD_RE) ?? []).join(' ')} ` };
}

const NOT_USED: UseVerdict = { used: false, evidence: null, by: null };

/** The verdict for one note: the id first, then a code-like token, then a phrase (the longest evidence wins within a kind). */
export function judgeUse(clues: UseClues, text: PreparedText | string): UseVerdict {
  const t = typeof text === 'string' ? prepareText(text) : text;
  if (!t.lower) return NOT_USED;
  if (clues.id && occursAsWord(t.lower, clues.id.toLowerCase())) return { used: true, evidence: clues.id, by: 'id' };
  const token = clues.tokens.filter((k) => occursAsWord(t.lower, k.toLowerCase())).sort((a, b) => b.length - a.length)[0];
  if (token) return { used: true, evidence: token, by: 'token' };
  const phrase = clues.phrases.find((p) => t.words.includes(` ${p} `));
  return phrase ? { used: true, evidence: phrase, by: 'phrase' } : NOT_USED;
}
