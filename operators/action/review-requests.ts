/**
 * Code review work: the comments a reviewer left, to answer ("address the review comments", "work
 * through Dana's feedback on the PR", "Ines went through #2417 and left a bunch of notes"). Teams
 * write rules about how (fixup commits, no force-push until approved, resolving threads) that apply
 * to all of these. Not a review app or environment, nor a review of something else than code (a
 * security or design review, an app store's, a fraud or KYC queue), nor a request to review code
 * ("review this function"), which asks for no comments to answer. Data only.
 */
import type { WorkKind } from './work-kinds.js';

export const REVIEW_KIND: WorkKind = {
  kind: 'review',
  objects: [
    String.raw`(?:code\s+|pr\s+)?review(?:er)?(?:'s|s'|s)?\s+(?:comments?|notes?|feedback|threads?|suggestions?|nits?|remarks?)`,
    String.raw`(?:comments?|notes?|feedback|nits?|suggestions?)\s+(?:on|in|from)\s+(?:the|my|our|this|that|his|her|their)\s+(?:pr|pull request|review)`,
  ],
  named: ['review', 'reviews', 'reviewer', 'reviewers', 'fixup', 'fixups'],
  verbs: ['address', 'resolve', 'respond to', 'reply to', 'answer', 'go through', 'work through', 'handle', 'apply', 'take care of'],
  // A review of something else than code: an app store's, a security or design review, a manual
  // check of accounts, content or claims (`fraud-flag-review`, `kyc-review-queue`).
  notNamed: [
    'apps?',
    'environments?',
    'envs?',
    'security',
    'design',
    'legal',
    'store',
    'appstore',
    'performance',
    'annual',
    'fraud',
    'kyc',
    'content',
    'moderation',
    'manual',
    'accounts?',
    'claims?',
    'compliance',
    'access',
    'risk',
    'queue',
  ],
};

/**
 * Review comments reported on a pull request ("Ines went through #2417 and left a bunch of notes",
 * "Sam left comments on my PR"): the request is to answer them, whatever words it uses. `pre` needs
 * the pull request (or its number) named somewhere in the prompt: notes left in a README are none.
 */
export const REVIEW_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [
  {
    kind: 'review',
    pre: /#\d+|\bprs?\b|\bpull requests?\b|\bmerge requests?\b|\bmrs?\b/i,
    // "left" as a verb, not a side ("the left notes column").
    re: /(?<!\b(?:the|a|an|top|bottom|upper|lower)\s+)\b(?<verb>left|leaves|leaving|added|posted|dropped)\s+(?:(?:a\s+(?:bunch|lot|few|couple|ton)\s+of|some|lots\s+of|several|many|\d+|his|her|their)\s+)?(?:[\w-]+\s+)?(?:notes|comments|feedback|nits|suggestions|remarks)\b/dgi,
  },
];
