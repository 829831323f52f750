/**
 * Code review work read in a prompt (work-kinds.ts, asked-work.ts): review comments to answer,
 * asked for by name or reported on a pull request ("Sam went through #812 and left a bunch of
 * notes"). A memory named for review or fixups is named for the work; a review of something else
 * (an app store's, a security review, a fraud review queue) is not.
 */
import { describe, it, expect } from '@jest/globals';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';
import { liftAskedSteps, ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import type { RelevanceEstimate } from '../../core/state.js';
import { note } from '../helpers/notes.js';

const review = (prompt: string): boolean => askedWork(prompt).has('review');

describe('code review work in a prompt', () => {
  it('reads review comments to answer, by name or reported on a pull request', () => {
    for (const p of [
      'address the review comments on my PR and push',
      "work through Dana's review feedback before lunch",
      'reply to the review threads, then re-request',
      'fix the comments on the PR',
      'Priya went through #812 last night and left a bunch of notes, mostly typos. sort them out and push',
      'Sam left comments on my pull request',
    ])
      expect([p, review(p)]).toEqual([p, true]);
  });

  it('reads none in other reviews, notes elsewhere, a denied request or a column', () => {
    for (const p of [
      'set up review apps for every PR',
      'what did the security review say about the token store',
      'I left some notes in the README',
      'no need to address the review nits',
      'the left notes column in the PR table is cut off',
      // The user's own notes, notes of another kind, comments left in code, a colour, not a pull request.
      'I added release notes for 2.3 to CHANGELOG.md, now open the PR',
      'write some testing notes in the PR description',
      'the previous dev left lots of comments like TODO in ingestd; remove the stale ones before we open a PR',
      'the designer left some notes about the #333 text colour, apply them to the dashboard css',
      'review this function for race conditions',
    ])
      expect([p, review(p)]).toEqual([p, false]);
  });

  it('names a memory for review or fixups, not for another kind of review', () => {
    expect([...workOf(nameWords('review-fixup-commits'))]).toContain('review');
    expect([...workOf(nameWords('pr-reviewers'))]).toContain('review');
    for (const name of [
      'review-apps',
      'security-review-checklist',
      'fraud-flag-review',
      'kyc-review-queue',
      'app-store-review',
      'product-reviews-schema',
      'reviews-api',
    ])
      expect([name, [...workOf(nameWords(name), true)].includes('review')]).toEqual([name, false]);
  });

  it('lifts the rule named for review for a prompt reporting notes on a pull request', () => {
    const rule = note(
      {
        id: undefined,
        name: 'review-fixup-commits',
        description: 'Answer review comments with fixup commits',
        metadata: { type: 'feedback' },
      },
      'Reviewers re-read only the fixups.\n\n**How to apply:** Once a PR has comments.',
      'documents/review-fixup-commits.md',
    );
    const relevance = new Map<string, RelevanceEstimate>([[rule.key, { p: 0.1, source: 'lexical', features: null }]]);
    const candidates = [{ note: rule, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }];
    liftAskedSteps(relevance, candidates, 'Priya went through #812 and left a bunch of notes. sort them out');
    expect(relevance.get(rule.key)).toMatchObject({ p: ASKED_STEP_SURE, source: 'asked-step' });
  });
});
