/**
 * The work kinds read in a prompt by what the work is, not by a request verb and its object
 * (asked-work.ts reads those): feature-flag work, code review comments to answer, time-dependent test
 * failures, and reading or writing a broker's topic by its verb. Data only.
 */
import { FLAG_REQUESTS } from './flag-requests.js';
import { REVIEW_REQUESTS } from './review-requests.js';
import { CLOCK_REQUESTS } from './clock-requests.js';

/** A broker named anywhere in the prompt. */
const BROKER = String.raw`\b(?:kafka|redpanda|pulsar|kinesis|nats|rabbitmq|sqs|sns|pub\/?sub|brokers?|partitions?|offsets?|consumer groups?|dlq|dead[- ]letter)\b`;
/** A topic, not a topic of a forum, a list or a model ("the topic owners", "the topics table", "20 topics with LDA"). */
const TOPIC = String.raw`(?:topic(?!\s+(?:owners?|tables?|endpoints?|lists?|pages?|models?|modell?ing|ideas?|tags?|threads?|forums?)\b)|dlq|dead[- ]letter(?:\s+(?:queue|topic))?)\b`;
/** What is done to it. Reading from, writing to or subscribing to a topic is a broker's only when one is named too (a forum's topics take subscribers). */
const TOPIC_OF = String.raw`(?:the\s+|a\s+|our\s+|each\s+|every\s+|its\s+)?(?:[\w.-]+\s+){0,2}?${TOPIC}`;

/**
 * A topic read or written by what is done to it ("a tool that tails the DLQ topic", "consume the
 * orders topic", "publish to the events topic", "replay the dead-letter topic"): a consumer or a
 * producer, for the rules named for the broker or its clients. Only a topic or a dead-letter queue:
 * a job queue is no broker's (jobs are their own kind), nor are logs tailed.
 */
const MESSAGING_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [
  {
    kind: 'messaging',
    pre: /topic|\bdlq\b|dead[- ]letter/i,
    re: new RegExp(
      String.raw`\b(?<verb>consum(?:e|es|ing)|tail(?:s|ing)?|drain(?:s|ing)?|replay(?:s|ing)?|publish(?:es|ing)?|produc(?:e|es|ing))\s+(?:from\s+|to\s+|into\s+)?${TOPIC_OF}`,
      'dgi',
    ),
  },
  {
    kind: 'messaging',
    pre: new RegExp(BROKER, 'i'),
    re: new RegExp(String.raw`\b(?<verb>read(?:s|ing)?\s+from|writ(?:e|es|ing)\s+to|subscrib(?:e|es|ing)\s+to)\s+${TOPIC_OF}`, 'dgi'),
  },
];

/** Each pattern with `pre`, a cheap test of a word it needs: most prompts have none. */
export const KIND_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [
  ...FLAG_REQUESTS,
  ...REVIEW_REQUESTS,
  ...CLOCK_REQUESTS,
  ...MESSAGING_REQUESTS,
];
