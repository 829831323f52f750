/**
 * The git steps teams write rules about without saying "git" ("commits use Conventional Commits",
 * "no rebase once reviewed"): a note named for one is about every run of it (operators/action/match.ts).
 * Pure.
 */
import { stemOf } from '../../core/stems.js';

/** The steps, by stem (`cherrypick` for `cherry-pick`). */
export const GIT_STEPS: ReadonlySet<string> = new Set(
  ['commit', 'push', 'rebase', 'merge', 'tag', 'revert', 'cherry-pick'].map(gitStepStem),
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
