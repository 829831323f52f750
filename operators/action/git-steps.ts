/**
 * The git steps teams write rules about without saying "git" ("commits use Conventional Commits",
 * "no rebase once reviewed"): a note named for one is about every run of it (operators/action/match.ts).
 * Pure.
 */
import { stemOf } from '../../core/stems.js';
import { CLAUSE, asksFor, notAsked, unswapVerbs } from './requests.js';
import { stemsOf } from './terms.js';

/** The steps, by stem (`cherrypick` for `cherry-pick`); `pr` is opening a pull request (`gh pr create`). */
export const GIT_STEPS: ReadonlySet<string> = new Set(
  ['commit', 'push', 'rebase', 'merge', 'tag', 'revert', 'cherry-pick', 'pr'].map(gitStepStem),
);

/** A step's stem as GIT_STEPS holds it (`cherry-pick` → `cherrypick`). */
export function gitStepStem(word: string): string {
  return stemOf(word.toLowerCase().replace('-', ''));
}

/**
 * Words that put a note in git's world besides the step itself: "push" in `push-notifications-apns`
 * or "commit" in `kafka-commit-offsets` names no git step, and such notes say none of these. Words
 * other worlds use too ("main" thread, CORS "origin", nginx "upstream", image "tag") are left out.
 */
const GIT_CONTEXT: ReadonlySet<string> = new Set(
  ['git', 'gh', 'branch', 'pr', 'rebase', 'merge', 'commit', 'push', 'amend', 'squash', 'fixup', 'trailer', 'changelog', 'cherry-pick'].map(
    gitStepStem,
  ),
);

/**
 * What a note is named: a Claude Code memory's `name` (`commit-message-format`), else its title. Both
 * readers of what a note is named for (the action triggers, the asked-step lift) read it here.
 */
export function noteName(note: { title: string; frontmatter: Record<string, unknown> }): string {
  const name = note.frontmatter['name'];
  return typeof name === 'string' && name ? name : note.title;
}

/** A pull or merge request spelled out in a name (`pull-requests`, `merge_request_rules`): the PR step. */
const PR_NAME_RE = /(?<![a-z])(?:pull|merge)[-_\s]+requests?(?![a-z])/i;

/**
 * The stems of a note's name as the git steps read it: its words, and `pr` for a name that spells
 * out a pull or merge request, which a team names its PR rules as often as "PR" (`pull-requests`).
 */
export function nameStepStems(name: string): Set<string> {
  const out = stemsOf(name.replace(/[-_]+/g, ' '));
  if (PR_NAME_RE.test(name)) out.add(gitStepStem('pr'));
  return out;
}

/**
 * The git steps a note is named for: steps its name (or title) holds, when its text names git's
 * world with another word too (`commit-message-format` saying "branch"; not `push-notifications-apns`).
 */
export function gitStepsOf(subject: ReadonlySet<string>, textStems: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const s of subject) {
    if (!GIT_STEPS.has(s)) continue;
    if ([...GIT_CONTEXT].some((c) => c !== s && textStems.has(c))) out.add(s);
  }
  return out;
}

/**
 * The git steps a prompt asks for as a request ("commit all of this", "and push it"); not steps it
 * reports ("branch is pushed") or mentions ("the commit message"), nor the same verbs in other worlds:
 * push notifications, a consumer that fails to commit offsets, a database transaction. Merge, tag and
 * revert are left out: "merge these two configs", "tag the users", "revert the change to foo.go" are
 * not git.
 */
const NOT_GIT = String.raw`(?!\s+(?:(?:a|an|the|its|their|our|my|all|each|every|these|those)\s+)?(?:notifications?|offsets?|transactions?|txns?)\b)`;
const ASKED_STEP_RE = new RegExp(`${CLAUSE}(?<verb>commit|push|rebase|cherry-pick)\\b(?![-'])${NOT_GIT}`, 'dgi');
/** A request to open a pull request: "open a PR", "create the pull request", "raise a draft MR". */
const ASKED_PR_RE = new RegExp(
  `${CLAUSE}(?<verb>open|create|raise|submit|file|make|send|put up)\\s+(?:(?:a|an|the|my|our|this|that)\\s+)?(?:draft\\s+)?(?:prs?|pull requests?|mrs?|merge requests?)\\b`,
  'dgi',
);

/**
 * A request to put a change up for review, which opens (or readies) a pull request: "put this up for
 * review", "send it out for review", "mark it ready for review".
 */
const ASKED_REVIEW_RE = new RegExp(
  `${CLAUSE}(?<verb>put|send|get|push|mark)\\s+(?:it|this|that|these|them|my changes|the changes|the branch|the pr)\\s+(?:up\\s+|out\\s+|as\\s+)?(?:for|to|ready\\s+for)\\s+(?:code\\s+)?review\\b`,
  'dgi',
);

/** The git steps a prompt asks for (by stem, as GIT_STEPS): at most the first 2,000 characters are read. */
export function askedSteps(prompt: string): Set<string> {
  const text = unswapVerbs(prompt.slice(0, 2000));
  const out = new Set<string>();
  // A step denied or reported as failing is not asked for ("no need to push yet", "fails to rebase").
  for (const m of text.matchAll(ASKED_STEP_RE)) {
    const verb = m.groups?.['verb'];
    if (verb && !notAsked(text, m.indices?.groups?.['verb']?.[0] ?? m.index ?? 0)) out.add(gitStepStem(verb));
  }
  if (asksFor(ASKED_PR_RE, text) || asksFor(ASKED_REVIEW_RE, text)) out.add(gitStepStem('pr'));
  return out;
}
