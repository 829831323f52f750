/**
 * Where a prompt asks for something: the start of a request, and whether the request is denied or a
 * failure report instead ("no need to add logging", "why does CI fail to run tests"). Shared by the
 * readers of asked git steps (git-steps.ts) and asked work (asked-work.ts). Pure.
 */

/**
 * Where a request starts: the prompt's start, a sentence or clause mark, or a word that leads into
 * one ("and", "then", "please", "can you", "should", "to").
 */
export const CLAUSE = String.raw`(?:^|[.;:!?,]\s+|\b(?:and|then|also|please|pls|now|just|go ahead and|can you|could you|would you|let's|lets|should|must|to|will|i'll|we'll)\s+|^\s*(?:ok|okay|alright|cool|great|good|nice|thanks|yes|yep|sure)\s+)`;

/**
 * What, right before a request's verb, makes it no request: a denial ("try not to add", "I don't want
 * you to commit"), or a report that it fails; "don't forget to push" still asks.
 */
const NOT_ASKED =
  /\b(?:no need to|not|don't|do not|never|without|shouldn't|should not|won't|didn't|doesn't|can't|cannot|fails? to|failed to|failing to|unable to|(?:not|never|don't|do not|doesn't|does not|didn't|won't|no one|nobody)\s+(?:(?:need|needs|want|wants|have|has|asked|ask)\s+(?:you\s+|us\s+)?)?to)\s+$/i;

/** Whether the verb that starts at `at` in `text` is denied or reported as failing (the 40 characters before it read). */
export function notAsked(text: string, at: number): boolean {
  return NOT_ASKED.test(text.slice(Math.max(0, at - 40), at));
}

/** The patterns asksFor runs, with the flags it needs, compiled once per pattern (a prompt runs dozens). */
const withIndices = new WeakMap<RegExp, RegExp>();

/** `re` with the `d` flag (the verb's position) and the `g` flag (every match), added when a caller left them out. */
function everyMatch(re: RegExp): RegExp {
  if (re.hasIndices && re.global) return re;
  let global = withIndices.get(re);
  if (!global) {
    global = new RegExp(re.source, `${re.flags}${re.hasIndices ? '' : 'd'}${re.global ? '' : 'g'}`);
    withIndices.set(re, global);
  }
  return global;
}

/**
 * Whether `re` (with the `d` flag and a `verb` group) finds a request in `text` that is asked: some
 * match whose verb is not denied or reported as failing.
 */
export function asksFor(re: RegExp, text: string): boolean {
  for (const m of text.matchAll(everyMatch(re))) {
    const at = m.indices?.groups?.['verb']?.[0];
    if (at === undefined || !notAsked(text, at)) return true;
  }
  return false;
}

/** Request verbs typed fast enough to swap two letters ("wrtie tests", "comimt it", "depoly"). */
const VERBS = ['write', 'commit', 'push', 'rebase', 'deploy', 'create', 'update', 'remove', 'install', 'build', 'tests', 'test'];
const BY_LETTERS = new Map(VERBS.map((v) => [[...v].sort().join(''), v]));

/** The verb `word` is with two neighbouring letters swapped back, or null (`wrtie` → `write`; `wrote` is no swap). */
function swappedVerb(word: string): string | null {
  const verb = BY_LETTERS.get([...word.toLowerCase()].sort().join(''));
  if (!verb || verb === word.toLowerCase()) return null;
  const w = word.toLowerCase();
  const diff = [...w].flatMap((ch, i) => (ch === verb[i] ? [] : [i]));
  return diff.length === 2 && diff[1] === diff[0]! + 1 ? verb : null;
}

/**
 * A prompt with request verbs typed with two neighbouring letters swapped written right, so "wrtie
 * tests for X" asks for tests as "write tests for X" does. Words only of four letters or more, and
 * only a swap of two letters: "wrote", "pushed" stay what they are.
 */
export function unswapVerbs(text: string): string {
  return text.replace(/\b[A-Za-z]{4,7}\b/g, (w) => swappedVerb(w) ?? w);
}
