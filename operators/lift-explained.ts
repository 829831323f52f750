/**
 * A prompt that asks what something means ("can you explain what this wants from me?", "what is this
 * even telling me??", "why does react care?") is about the Claude Code memory that says how this user
 * wants things explained ("User is a senior Go engineer who started Rust in 2026: explain borrow
 * problems via Go analogies"): such a `user` memory applies to every explanation in what it names,
 * in words the prompt never repeats beyond the technology. Pure.
 *
 * The best such memory whose description or How to apply shares a word of the prompt that is not an
 * everyday one (its technology: "react", "borrow", "terraform") is lifted to ASKED_STEP_SURE, so the
 * prompt hook gives it whole. One that shares none is about explaining something else ("explain
 * Distributed vs ReplicatedMergeTree" to a Rust learner); nor does a word only its body holds count:
 * the body also lists what the user knows well ("fluent in SQL, dbt and Airflow", "async Python").
 */
import type { RelevanceEstimate, WeighedTerm } from '../core/state.js';
import type { Candidate } from '../core/types.js';
import { textStems } from '../core/stems.js';
import { GENERIC_INFO } from './math/index.js';
import { ASKED_STEP_SURE } from './lift-asked-steps.js';

/**
 * Asking what something means or why it happens: "explain" (not SQL's `EXPLAIN ANALYZE`, "run
 * explain", nor an explanation to write in a commit message or docs), "what does this (borrow error)
 * mean", "what does E0502 mean", "what is this (even) telling me", "what's this doing", "what is
 * react doing here", "why does react care", "I don't get it / why / the rules" (not "I don't get
 * any logs"), "help me understand". Not "walk me through how the app decides …": a tour of the
 * project's own code, which a user explains in no terms of their own.
 */
const ASKS_MEANING = new RegExp(
  [
    // Not "run explain on the query", nor an explanation to write ("explain the change in the commit message").
    String.raw`(?<!\brun\s)\bexplain(?!\s+(?:analy[sz]e|plan|select|\())\b(?![^.?!\n]{0,60}\bin\s+(?:the|a|your|this|my)\s+(?:commit|pr|pull request|readme|docs?|docstring|comments?|description|changelog|release notes)\b)`,
    String.raw`\bwhat (?:does|do) [\w.'-]+(?: [\w-]+){0,3} mean\b`,
    String.raw`\bwhat(?: is|'s) (?:this|that|it)(?: even| actually)? (?:telling|saying|doing|asking|trying)\b`,
    String.raw`\bwhat(?: is|'s) [\w.-]+(?: even| actually)? doing (?:here|there|with)\b`,
    String.raw`\bwhy (?:does|do|would) [\w.-]+ (?:even )?care\b`,
    // "I don't get it / why / the rules"; not "I don't get any logs" (receiving nothing).
    String.raw`\bi (?:still )?(?:don'?t|do not) (?:get|understand)(?= (?:it|this|that|why|how|what|the (?:point|rules?|difference|logic|error))\b|\s*[.,!?]|\s*$)`,
    String.raw`\bhelp me understand\b`,
  ].join('|'),
  'i',
);

/** Whether a prompt asks what something means (the first 2,000 characters read). */
export function asksMeaning(prompt: string): boolean {
  return ASKS_MEANING.test(prompt.slice(0, 2000));
}

/** What a `user` memory says of explaining: "explain …", "explanations", "asks to understand", "what … means". */
const SAYS_EXPLAIN = /\bexplain\w*|\bexplanations?\b|\bunderstand\w*|\bwhat [\w\s/,-]{1,60} means\b/i;

/** Whether a note is a memory about the user saying how they want things explained. */
export function explainsForUser(note: Candidate['note']): boolean {
  if (note.memoryType !== 'user') return false;
  return SAYS_EXPLAIN.test(`${note.keyInsight}\n${note.howToApply}`);
}

/** Lifts, in place, the memory on how to explain to this user, for a prompt asking what something means (see the module comment). */
export function liftExplained(
  relevance: Map<string, RelevanceEstimate>,
  candidates: readonly Candidate[],
  query: string,
  weighed: readonly WeighedTerm[],
): void {
  if (!asksMeaning(query)) return;
  const words = weighed.filter((t) => t.info > GENERIC_INFO).map((t) => t.stem);
  let best: Candidate | null = null;
  for (const c of candidates) {
    const e = relevance.get(c.note.key);
    if (!e || !explainsForUser(c.note)) continue;
    // Its summary shares a word of the prompt that is not an everyday one (its technology).
    const summary = textStems(`${c.note.keyInsight}\n${c.note.howToApply}`);
    if (!words.some((w) => summary.has(w))) continue;
    if (!best || e.p > relevance.get(best.note.key)!.p) best = c;
  }
  const e = best && relevance.get(best.note.key);
  if (best && e && e.p < ASKED_STEP_SURE)
    relevance.set(best.note.key, {
      ...e,
      p: ASKED_STEP_SURE,
      ranking: Math.max(ASKED_STEP_SURE, e.ranking ?? e.p),
      source: 'asked-meaning',
    });
}
