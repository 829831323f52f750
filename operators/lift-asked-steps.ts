/**
 * A prompt that asks for a git step ("commit all of this and open a PR against main") is about the
 * learnings named for that step ("commit-message-format", "PR descriptions need a Testing section"),
 * whatever else it says: teams write these rules in their own words ("Conventional Commits", "a
 * Testing section"), which a request to commit never repeats, and "commit" or "PR" alone is an
 * everyday coding word the lexical estimate rightly does not trust. Pure.
 *
 * For each asked step, the learning most about it is lifted to ASKED_STEP_SURE, so the prompt hook
 * gives it whole (at 0.5 or more); any other one named for it to ASKED_STEP_UNSURE, a pointer at most
 * (the hook gives one pointer, between its 0.3 floor and 0.5). A learning is named for a step by
 * its name (a Claude Code memory's `name`, else its title) holding the step, when its text speaks of
 * git with another word too (operators/action/git-steps.ts: not `push-notifications-apns`).
 */
import type { RelevanceEstimate } from '../core/state.js';
import type { Candidate } from '../core/types.js';
import { searchableText } from '../core/note/index.js';
import { askedSteps, gitStepsOf } from './action/git-steps.js';
import { rawTokens, stemsOf, tokenWords } from './action/terms.js';
import { stemOf } from '../core/stems.js';

/** The relevance of the best learning named for an asked step: over the prompt hook's 0.5, given whole. */
export const ASKED_STEP_SURE = 0.6;
/** The relevance of the others: over its 0.3 floor, under 0.5 (a one-line pointer at most). */
export const ASKED_STEP_UNSURE = 0.35;

/** A note's summary words, as stems in order (name, title, How to apply): how often it speaks of a step. */
function summaryStems(c: Candidate): string[] {
  const name = typeof c.note.frontmatter['name'] === 'string' ? c.note.frontmatter['name'] : '';
  return rawTokens(`${name.replace(/[-_]+/g, ' ')}\n${c.note.title}\n${c.note.howToApply}`).flatMap((t) => tokenWords(t).map(stemOf));
}

/** Lifts, in place, the candidates named for a git step the query asks for (see the module comment). */
export function liftAskedSteps(relevance: Map<string, RelevanceEstimate>, candidates: readonly Candidate[], query: string): void {
  const asked = askedSteps(query);
  if (asked.size === 0) return;
  const stepsOf = new Map<Candidate, Set<string>>();
  for (const c of candidates) {
    const name = typeof c.note.frontmatter['name'] === 'string' ? c.note.frontmatter['name'] : c.note.title;
    stepsOf.set(c, gitStepsOf(stemsOf(name.replace(/[-_]+/g, ' ')), stemsOf(searchableText(c.note))));
  }
  const lift = (c: Candidate, to: number): void => {
    const e = relevance.get(c.note.key);
    if (e && e.p < to) relevance.set(c.note.key, { ...e, p: to, ranking: Math.max(to, e.ranking ?? e.p), source: 'asked-step' });
  };
  for (const step of asked) {
    // The one most about the step first: the step most often in its name, title and How to apply
    // ("commit-message-format: Commits use Conventional Commits ... Every commit I create" before
    // "review-fixup-commits"), then its own estimate.
    const said = (c: Candidate): number => summaryStems(c).filter((s) => s === step).length;
    const own = (c: Candidate): number => relevance.get(c.note.key)?.p ?? 0;
    const named = candidates.filter((c) => stepsOf.get(c)!.has(step)).sort((a, b) => said(b) - said(a) || own(b) - own(a));
    named.forEach((c, i) => lift(c, i === 0 ? ASKED_STEP_SURE : ASKED_STEP_UNSURE));
  }
}
