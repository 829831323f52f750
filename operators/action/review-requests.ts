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
    // Not notes of another kind, nor what is written in a pull request's description ("testing notes in the PR description").
    String.raw`(?<!\b(?:release|testing|test|doc|docs|meeting|design|handoff)\s)(?:comments?|notes?|feedback|nits?|suggestions?)\s+(?:on|in|from)\s+(?:the|my|our|this|that|his|her|their)\s+(?:pr|pull request|review)(?!\s+(?:description|body|title|template|text)\b)`,
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
    // A product's reviews and ratings (`product-reviews-schema`, `reviews-api`).
    'product',
    'products',
    'customer',
    'customers',
    'user',
    'users',
    'ratings?',
    'api',
    'schema',
  ],
};

/** A pull request named in the clause: by name, or its number after "through", "on", "in", "of" ("went through #2417"). */
const PR_REF = String.raw`(?:\b(?:through|on|in|at|for|of|to|reviewed|reviewing)\s+#\d+\b|\bprs?\b|\bpull requests?\b|\bmerge requests?\b|\breview\b)`;
/**
 * Someone left notes or comments: "left a bunch of notes", "posted some nits". Not the user's own
 * additions ("I added release notes"), nor notes of another kind (release, testing, meeting notes),
 * nor "left" as a side ("the left notes column").
 */
const LEFT_NOTES = String.raw`(?<!\b(?:the|a|an|top|bottom|upper|lower)\s+)\b(?<verb>left|leaves|leaving|posted|dropped)\s+(?:(?:a\s+(?:bunch|lot|few|couple|ton)\s+of|some|lots\s+of|several|many|\d+|his|her|their)\s+)?(?:(?!release|testing|test|doc|docs|meeting|design|sticky|handoff|handover|patch)[\w-]+\s+)?(?:notes|comments|feedback|nits|suggestions|remarks)\b`;

/**
 * Review comments reported on a pull request ("Ines went through #2417 and left a bunch of notes",
 * "Sam left comments on my PR"): the request is to answer them, whatever words it uses. The pull
 * request is named in the same clause: comments left in the code ("the previous dev left lots of
 * comments like TODO in ingestd; open a PR after") are none.
 */
export const REVIEW_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [
  {
    kind: 'review',
    pre: /\b(?:left|leaves|leaving|posted|dropped)\b/i,
    re: new RegExp(
      String.raw`${PR_REF}[^.;!?\n]{0,120}?${LEFT_NOTES}|${LEFT_NOTES.replace('(?<verb>', '(?<verb2>')}[^.;!?\n]{0,120}?${PR_REF}`,
      'dgi',
    ),
  },
];
