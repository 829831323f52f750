/**
 * A broker's topic read or written by what is done to it is messaging work
 * (operators/action/kind-requests.ts): "a tool that tails the DLQ topic", "consume the orders topic",
 * "replay the dead-letter queue". Not logs tailed, notes published, or a job queue drained.
 */
import { describe, it, expect } from '@jest/globals';
import { askedWork } from '../../operators/action/asked-work.js';
import { liftAskedSteps, ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import type { RelevanceEstimate } from '../../core/state.js';
import { note } from '../helpers/notes.js';

const messaging = (prompt: string): boolean => askedWork(prompt).has('messaging');

describe('a topic read or written by its verb', () => {
  it('is messaging work', () => {
    for (const p of [
      'write a small tool under tools/ that tails the DLQ topic and prints counts per reason',
      'consume the orders topic from the start',
      'read from the payments dead-letter topic and log the keys',
      'replay the dead-letter queue into ingest',
      'publish to the audit topic when a tenant is deleted',
    ])
      expect([p, messaging(p)]).toEqual([p, true]);
  });

  it('is not logs tailed, notes published, a job queue drained, or a question about a topic', () => {
    for (const p of [
      'tail the ingestd logs',
      'publish the release notes',
      'drain the sidekiq queue',
      'what topic does this write to',
      // A forum's topics, a topic model's, a topics table or endpoint, the topic's owners.
      'produce 20 topics with LDA on the support tickets and write them to the topics table',
      'I want to write to the topic owners about the schema change, draft the email',
      'add a button so users can subscribe to a topic in the community forum',
      'consume the topics endpoint of the docs CMS in the website build',
    ])
      expect([p, messaging(p)]).toEqual([p, false]);
  });

  it('lifts the rule named for the broker', () => {
    const rule = note(
      {
        id: undefined,
        name: 'kafka-client-choice',
        description: 'Every service talks to the broker through internal/kafka',
        metadata: { type: 'project' },
      },
      'The wrappers set the offsets and retries.',
      'documents/kafka-client-choice.md',
    );
    const relevance = new Map<string, RelevanceEstimate>([[rule.key, { p: 0.1, source: 'lexical', features: null }]]);
    liftAskedSteps(relevance, [{ note: rule, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }], 'write a tool that tails the DLQ topic');
    expect(relevance.get(rule.key)).toMatchObject({ p: ASKED_STEP_SURE, source: 'asked-step' });
  });
});
