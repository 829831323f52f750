/**
 * Which query words the notes write as names (the relevance estimate's `proper`, operators/weigh-terms.ts). Pure.
 */
import { fold, stemOf } from './stems.js';

/**
 * Which of `words` (folded query words) the given texts write as names: capitalised where a sentence
 * does not start ("on Friday", "ask Ines", "with Postgres") more often than in lower case. A prompt's
 * own capitals say little ("Merge freeze Friday" and "merge freeze friday" ask the same thing), so
 * the relevance estimate asks the notes instead, and a prompt's relevance does not depend on how it
 * was typed. Text written in Title Case (half its words or more capitalised: a heading) is skipped,
 * as its capitals say nothing; so is a word's first use in a line or after . ! ? : (a sentence start),
 * unless a colon follows it ("John: …", a speaker or a label). `seen`: the words the texts use at all,
 * in any form of their stem.
 *
 * A word the texts never write, but whose stem they write in another form, is seen and no name: the
 * relevance estimate matches it through that form (a note that writes "generate" contains "generics"
 * for the estimate, both stem to "gener"), and that form is no name of the thing the prompt asks
 * about, whatever film subtitles make of "General". Another form never makes a word a name: notes
 * on Express do not make "expressed" one, nor "Go" make "going" one.
 */
export function namesInTexts(
  texts: Iterable<string>,
  words: ReadonlySet<string>,
  maxChars = Infinity,
): { names: Set<string>; seen: Set<string> } {
  const capital = new Map<string, number>();
  const lower = new Map<string, number>();
  const seen = new Set<string>();
  const seenStems = new Set<string>();
  if (!words.size) return { names: new Set(), seen };
  const stems = new Set([...words].map(stemOf));
  // What a line must contain to hold a wanted word or a form of its stem: the stem without a last
  // letter Porter may have rewritten ("happi" of "happy", "copi" of "copy").
  const wanted = [...words, ...[...stems].map((s) => (s.length > 3 ? s.slice(0, -1) : s))];
  for (const text of texts) {
    const src = text.length > maxChars ? text.slice(0, maxChars) : text;
    for (const line of src.split('\n')) {
      // Most lines hold none of the query's words: a substring test skips them before tokenizing
      // (a line with accented Latin letters is always tokenized, as folding them may make it match).
      const lowerLine = line.toLowerCase();
      if (!/[\u00c0-\u024f]/.test(line) && !wanted.some((w) => lowerLine.includes(w))) continue;
      const tokens = line.match(/[\p{L}\p{N}]+|[.!?:]/gu);
      if (!tokens) continue;
      const wordsOfLine = tokens.filter((t) => !/^[.!?:]$/.test(t));
      const caps = wordsOfLine.filter((t) => /^\p{Lu}/u.test(t)).length;
      if (wordsOfLine.length >= 4 && caps / wordsOfLine.length >= 0.5) continue;
      let start = true;
      for (const [i, t] of tokens.entries()) {
        if (/^[.!?:]$/.test(t)) {
          start = true;
          continue;
        }
        const folded = fold(t);
        const stem = stemOf(folded);
        if (words.has(folded)) {
          seen.add(folded);
          // A capitalised word that heads a label ("John: …", a speaker or a field) is a name too.
          const label = tokens[i + 1] === ':';
          if (/^\p{Lu}\p{Ll}/u.test(t)) {
            if (!start || label) capital.set(folded, (capital.get(folded) ?? 0) + 1);
          } else if (/^\p{Ll}/u.test(t)) lower.set(folded, (lower.get(folded) ?? 0) + 1);
        } else if (stems.has(stem)) seenStems.add(stem);
        start = false;
      }
    }
  }
  for (const w of words) if (seenStems.has(stemOf(w))) seen.add(w);
  return { names: new Set([...capital].filter(([w, n]) => n > (lower.get(w) ?? 0)).map(([w]) => w)), seen };
}
