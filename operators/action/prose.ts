/**
 * What a note's prose (its title, key insight, how to apply, rule) says about actions, read without
 * code spans. Pure.
 * - the words it writes side by side (`run git worktree prune`): a command named in prose;
 * - what it says is retired (`Heroku is decommissioned`);
 * - what it sets aside in a contrast (`fix the pool, not the timeout`).
 */
import { rawTokens, stemsOf } from './terms.js';
import { versionless } from './tool-call.js';

/** Most word pairs kept per note (a huge note must not make every call match). */
const MAX_PAIRS = 200;

/** The prose triggers of a note's about-text. */
export function proseTriggers(about: string): { wordPairs: Set<string>; retired: Set<string>; setAside: Set<string> } {
  return { wordPairs: proseWordPairs(about), retired: retiredWords(about), setAside: setAsideWords(about) };
}

/** "X is deprecated", "Xs are decommissioned": a plain word a sentence says is retired. */
const RETIRED_RE =
  /(?:^|[\s(])([A-Za-z][A-Za-z0-9]{2,40})\s+(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:deprecated|decommissioned|obsolete|banned|forbidden|retired|discontinued|end-of-life)\b/gi;

/** Stems of the words a text says are retired: a tool, platform or scheme the note tells the agent off. */
export function retiredWords(text: string): Set<string> {
  return new Set([...text.slice(0, 8000).matchAll(RETIRED_RE)].flatMap((m) => [...stemsOf(m[1]!)]));
}

/**
 * "X, not Y": the last word of Y, up to the clause's end ("read the cgroup peak, not the pod limit"
 * sets aside `limit`; "fix the pool, not the timeout" `timeout`): what the note tells the agent not to reach for.
 */
export function setAsideWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, 8000).matchAll(/,\s+not\s+([^.;:,!?—()\n]{1,60})/gi)) {
    const words = rawTokens(m[1]!.replace(/\s[-–]\s.*$/, ''));
    const last = words.length > 0 && words.length <= 4 ? words[words.length - 1]! : '';
    if (/^[A-Za-z][A-Za-z-]+$/.test(last)) for (const s of stemsOf(last)) out.add(s);
  }
  return out;
}

/**
 * Adjacent words of a text as written, lower-cased, within each sentence or clause; the first read
 * as a program is (without its version: "run pip3 install" names what a call's `pip install` runs).
 */
export function proseWordPairs(text: string, maxChars = 8000): Set<string> {
  const out = new Set<string>();
  for (const clause of text.slice(0, maxChars).split(/[.!?;:,](?:\s|$)|\n|\s[-—]\s/)) {
    const words = rawTokens(clause).map((w) => w.toLowerCase());
    for (let i = 1; i < words.length; i += 1) if (out.size < MAX_PAIRS) out.add(`${versionless(words[i - 1]!)} ${words[i]}`);
  }
  return out;
}
