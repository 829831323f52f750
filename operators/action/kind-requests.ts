/**
 * The work kinds read in a prompt by what the work is, not by a request verb and its object
 * (asked-work.ts reads those): feature-flag work, code review comments to answer, time-dependent test
 * failures. Data only.
 */
import { FLAG_REQUESTS } from './flag-requests.js';
import { REVIEW_REQUESTS } from './review-requests.js';
import { CLOCK_REQUESTS } from './clock-requests.js';

/** Each pattern with `pre`, a cheap test of a word it needs: most prompts have none. */
export const KIND_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [...FLAG_REQUESTS, ...REVIEW_REQUESTS, ...CLOCK_REQUESTS];
