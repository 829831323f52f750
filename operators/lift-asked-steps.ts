/**
 * A prompt that asks for a git step ("commit all of this and open a PR against main") or a kind of
 * work ("write tests for X", "add some debug logging", "find a library for X") is about the rules
 * named for it ("commit-message-format", "go-test-style", "logging-privacy", "new-dependency-policy"),
 * whatever else it says: teams write these rules in their own words ("Conventional Commits",
 * "table-driven", "never log payloads"), which a request for the work never repeats, and "commit",
 * "tests" or "logging" alone is an everyday coding word the lexical estimate rightly does not trust.
 * Pure.
 *
 * For each asked step or work, the rule most about it is lifted to ASKED_STEP_SURE, so the prompt
 * hook gives it whole (at 0.5 or more); any other one named for it to ASKED_STEP_UNSURE, a pointer at
 * most (the hook gives one pointer, between its 0.3 floor and 0.5). A note is named for a step or
 * work by its name (a Claude Code memory's `name`, else its title) holding it, or for a work by the
 * first clause of a memory's "How to apply" line naming it (appliesTo; ranked after the notes named for
 * it); for a git step its text must speak of git with another word too (git-steps.ts: not
 * `push-notifications-apns`). Only
 * rules are lifted: Claude Code memories, and learnings of a rule type (pattern, decision, ...); a
 * bug-fix titled "Flaky vitest tests" is named for a problem, not for writing tests.
 */
import type { RelevanceEstimate } from '../core/state.js';
import type { Candidate } from '../core/types.js';
import { searchableText } from '../core/note/index.js';
import {
  askedSteps,
  askedWork,
  gitStepsOf,
  nameStepStems,
  isRuleNote,
  nameWords,
  noteName,
  rawTokens,
  stemsOf,
  tokenWords,
  workOf,
  workStems,
  workTools,
} from './action/index.js';
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

/**
 * The kinds of work a Claude Code memory's "How to apply" line says it applies to, read from its
 * first clause, which says when ("Adding, upgrading or removing any dependency or plugin, and editing any
 * `build.gradle.kts`"): a rule named for its tool (`gradle-version-catalog`) is about dependency work
 * as much as one named `new-dependency-policy`. What follows a dash, colon or the first sentence says
 * what to do, and mentions work only in passing ("Any S3 auth error in local runs — check the VM
 * clock before touching credentials" is not about credentials).
 */
function appliesTo(note: Candidate['note']): Set<string> {
  // A learning's How to apply says what to do about its problem ("When tests exhaust the postgres
  // pool, switch to a session engine"): it names a symptom, not the work the learning is a rule for.
  if (!note.memoryType) return new Set();
  const when = note.howToApply.split(/\s+[—–-]\s+|[:;]\s|\.\s/)[0] ?? '';
  const kinds = when ? workOf(nameWords(when), false) : new Set<string>();
  // In a name, "checks" and "done" name the checks before a change is done (`precommit-checks`); in
  // a sentence they are everyday words ("Liveness probes must not check the database; health checks").
  kinds.delete('verify');
  return kinds;
}

/** What the lift knows of each rule named for an asked step or work (see namedRules). */
interface NamedRules {
  /** The asked steps and works each is named for. */
  namedFor: Map<Candidate, Set<string>>;
  /** How many of the prompt's words (besides the requests) its text holds. */
  shared: Map<Candidate, number>;
  /** Its text's stems. */
  textOf: Map<Candidate, Set<string>>;
  /** The works only its How to apply names. */
  applyOnly: Map<Candidate, Set<string>>;
}

/** The rules among the candidates named for an asked step or work, and what the lift orders them by. */
function namedRules(candidates: readonly Candidate[], asked: ReadonlySet<string>, queryStems: ReadonlySet<string>): NamedRules {
  const out: NamedRules = { namedFor: new Map(), shared: new Map(), textOf: new Map(), applyOnly: new Map() };
  // The prompt's words besides the requests themselves ("commit", "PR" say which step, not which note).
  const requested = new Set([...asked].flatMap((a) => (a.startsWith('work:') ? [...workStems(a.slice(5))] : [a])));
  const promptStems = [...queryStems].filter((s) => !requested.has(s));
  for (const c of candidates) {
    if (!isRuleNote(c.note)) continue;
    const name = noteName(c.note);
    const nameStems = nameStepStems(name);
    const byName = [...workOf(nameWords(name), Boolean(c.note.memoryType))].map((k) => `work:${k}`).filter((k) => asked.has(k));
    const byApply = [...appliesTo(c.note)].map((k) => `work:${k}`).filter((k) => asked.has(k) && !byName.includes(k));
    const work = [...byName, ...byApply];
    if (byApply.length) out.applyOnly.set(c, new Set(byApply));
    const steps = [...nameStems].filter((st) => asked.has(st));
    // The note's whole text is read only for a name that holds an asked step or work: most names do not.
    if (work.length === 0 && steps.length === 0) continue;
    const text = stemsOf(searchableText(c.note));
    out.namedFor.set(c, new Set([...gitStepsOf(new Set(steps), text), ...work]));
    out.shared.set(c, promptStems.filter((st) => text.has(st)).length);
    out.textOf.set(c, text);
  }
  return out;
}

/** Lifts, in place, the candidates named for a git step or kind of work the query asks for (see the module comment). */
export function liftAskedSteps(relevance: Map<string, RelevanceEstimate>, candidates: readonly Candidate[], query: string): void {
  const asked = new Set([...askedSteps(query), ...[...askedWork(query)].map((k) => `work:${k}`)]);
  if (asked.size === 0) return;
  const queryStems = stemsOf(query);
  const { namedFor, shared, textOf, applyOnly } = namedRules(candidates, asked, queryStems);
  const lift = (c: Candidate, to: number): void => {
    const e = relevance.get(c.note.key);
    if (e && e.p < to) relevance.set(c.note.key, { ...e, p: to, ranking: Math.max(to, e.ranking ?? e.p), source: 'asked-step' });
  };
  for (const step of asked) {
    // The one most about it first: the one sharing the most words of the prompt (the rest of it
    // says which: "tests for internal/auth" share `internal` with the Go test rule, not the Rust
    // one), then the one naming the step most often in its name, title and How to apply
    // ("commit-message-format: Commits use Conventional Commits ... Every commit I create" before
    // "review-fixup-commits"), then its own estimate.
    const words = step.startsWith('work:') ? workStems(step.slice(5)) : new Set([step]);
    const own = (c: Candidate): number => relevance.get(c.note.key)?.p ?? 0;
    const named = candidates.filter((c) => namedFor.get(c)?.has(step));
    const said = new Map(named.map((c) => [c, summaryStems(c).filter((st) => words.has(st)).length]));
    // A rule named for the work comes before one whose How to apply names it.
    const byApplyOnly = (c: Candidate): number => (applyOnly.get(c)?.has(step) ? 1 : 0);
    // A prompt naming the tool it does the work with ("now rspec it") is about the rule for that
    // tool first, whatever the others are named (`mobile-jest-tests` is no rule for RSpec).
    const tools = step.startsWith('work:') ? [...workTools(step.slice(5))].filter((t) => queryStems.has(t)) : [];
    const usesTool = (c: Candidate): number => (tools.some((t) => textOf.get(c)!.has(t)) ? 1 : 0);
    named.sort(
      (a, b) =>
        usesTool(b) - usesTool(a) ||
        byApplyOnly(a) - byApplyOnly(b) ||
        shared.get(b)! - shared.get(a)! ||
        said.get(b)! - said.get(a)! ||
        own(b) - own(a),
    );
    // A rule whose How to apply alone names the work is lifted only as the one most about it: as one
    // more guess it would take the prompt's one pointer from a note the estimate found on its own.
    // When the prompt names its tool, only the rules for that tool are lifted: a nextest rule is no
    // answer to "now rspec it" however few rules the project has.
    named.forEach((c, i) => {
      if (tools.length > 0 && !usesTool(c)) return;
      if (i === 0) lift(c, ASKED_STEP_SURE);
      else if (!byApplyOnly(c)) lift(c, ASKED_STEP_UNSURE);
    });
  }
}
