/**
 * Which notes a tool call may reach, told from their text alone before any trigger is derived: the
 * order in which a process that ends with its call derives triggers (action-triggers.ts), so that
 * when its time runs out the notes the call could match are the ones ready.
 *
 * Deriving a note's triggers costs about 5 ms in a process that just started (JIT not warm yet): a
 * first tool call on a 45-note memory folder spent 200 ms of its 1.4 s on them, and on a loaded
 * machine ran out of time and gave nothing. The notes a call reaches by its words (a command, a
 * package, a file, a word of the note's subject) share a word beginning with it: the matcher takes a
 * note word as an abbreviation of a longer call word ("auth" of "authenticate") and a call word
 * extended by a few letters ("config", "configuration"), and both share the first four letters.
 * Notes with an `applies_when` list are always among them: their author said when they apply.
 */
import type { Note } from '../core/note/index.js';
import { searchableText } from '../core/note/index.js';

/** Letters of a word that decide whether two words may match (the matcher's shortest abbreviation). */
const PREFIX_CHARS = 4;
/** Words of English that say nothing of what a note is about: a note is not reached through them. */
const FUNCTION_WORDS = new Set(
  'a an and are as at be but by do for from has have if in into is it its no not of on or our so than that the their then there these this to was we were when will with you your'.split(
    ' ',
  ),
);

/** The words of a text, lower-cased: split at case changes and at anything not a letter or digit. */
const wordsOf = (text: string): string[] =>
  text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .match(/[a-z0-9]+/g) ?? [];

/** The word beginnings of a text, numbers and function words left out. */
function beginnings(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of wordsOf(text)) if (w.length >= 2 && /[a-z]/.test(w) && !FUNCTION_WORDS.has(w)) out.add(w.slice(0, PREFIX_CHARS));
  return out;
}

/**
 * Whether a note may be reached by a call: it has an `applies_when`, or shares a word beginning with
 * the call's text (all of it: what it runs or writes, what it replaces, the lines it quotes, its
 * paths), or writes one of `workWords` whole (the words naming the kinds of work the call does:
 * "dependency" for `npm install`, which its beginning "depe" alone would not be enough to say).
 */
export function reachableBy(callText: string, workWords: readonly string[] = []): (note: Note) => boolean {
  const call = beginnings(callText);
  const work = new Set(workWords.map((w) => w.toLowerCase()));
  return (note) => {
    if (note.frontmatter['applies_when'] !== undefined) return true;
    const words = wordsOf(searchableText(note));
    return words.some((w) => call.has(w.slice(0, PREFIX_CHARS)) || work.has(w));
  };
}
