/**
 * Which rule a request for work lifts when it names its tool ("ok, now rspec it"), work said to be
 * needed ("we need an index for it"), a topic's consumer or producer, and a PR asked for in other words ("put this up for review")
 * or a PR rule named in words (`pull-requests`) (operators/lift-asked-steps.ts, action/).
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';
import { askedSteps, nameStepStems } from '../../operators/action/git-steps.js';
import { noteTriggers } from '../../operators/action/triggers.js';
import { queryTerms } from '../../core/stems.js';
import { initialState } from '../../core/state.js';
import { note } from '../helpers/notes.js';
import type { Note } from '../../core/note/index.js';

const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
  live: 40,
  df: new Map(stems.map((s) => [s, 3])),
  info: new Map(stems.map((s) => [s, 0.3])),
});

async function estimate(query: string, notes: Note[]): Promise<Map<string, { p: number; source: string }>> {
  const candidates = notes.map((n, i) => ({ note: n, rrf: 1 / (61 + i), evidence: 1, ranks: { bm25: i + 1 } }));
  const s = await lastValueFrom(
    of({ ...initialState(query, []), candidates }).pipe(
      estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
    ),
  );
  return new Map(notes.map((n) => [n.frontmatter['name'] as string, s.relevance.get(n.key)!]));
}

const memory = (name: string, body: string): Note =>
  note({ id: undefined, name, description: body.split('\n')[0], metadata: { type: 'feedback' } }, body, `documents/${name}.md`);

describe('a test runner named as the verb', () => {
  it('asks for tests: "ok, now rspec it"', () => {
    expect(askedWork('ok, now rspec it')).toContain('test');
    expect(askedWork('then pytest this again')).toContain('test');
  });

  it('asks for tests with words after the runner: "now rspec it and tell me what fails"', () => {
    expect(askedWork('now rspec it and tell me what fails')).toContain('test');
    expect(askedWork('ok now nextest it')).toContain('test');
  });

  it('asks for none when the runner is only mentioned', () => {
    expect(askedWork('I ran rspec it failed')).not.toContain('test');
    expect(askedWork('the rspec it block fails on CI')).not.toContain('test');
  });

  it("lifts the rule for the prompt's runner, not one named for tests of another runner", async () => {
    const rspec = memory(
      'running-specs',
      'Run RSpec from api/ with bin/rspec on the touched spec files only.\n\n**How to apply:** whenever running Ruby tests.',
    );
    const jest = memory('mobile-jest-tests', 'Mobile tests use jest with the expo preset.\n\n**How to apply:** writing mobile tests.');
    const got = await estimate('ok, now rspec it', [jest, rspec]);
    expect(got.get('running-specs')!.p).toBe(ASKED_STEP_SURE);
    expect(got.get('mobile-jest-tests')!.source).not.toBe('asked-step');
  });

  it('lifts no rule when none is for the runner the prompt names', async () => {
    const nextest = memory('rust-tests-nextest', 'Rust tests run with cargo nextest.\n\n**How to apply:** running Rust tests.');
    const got = await estimate('ok, now rspec it', [nextest]);
    expect(got.get('rust-tests-nextest')!.source).not.toBe('asked-step');
  });
});

describe('a PR rule named in words', () => {
  const pr = memory(
    'pull-requests',
    'Open PRs as drafts (gh pr create --draft) with the template filled in.\n\n**How to apply:** whenever opening a PR.',
  );

  it('reads a pull or merge request spelled out in a name as the PR step', () => {
    expect(nameStepStems('pull-requests').has('pr')).toBe(true);
    expect(nameStepStems('merge_request_rules').has('pr')).toBe(true);
    expect(nameStepStems('pull-the-latest-images').has('pr')).toBe(false);
  });

  it('is lifted for "push and open a pr"', async () => {
    expect((await estimate('push and open a pr', [pr])).get('pull-requests')!.p).toBe(ASKED_STEP_SURE);
  });

  it('is a trigger of the PR step at the tool call (gh pr create)', () => {
    expect(noteTriggers(pr, 'pull-requests').gitSteps.has('pr')).toBe(true);
  });
});

describe('work said to be needed', () => {
  it('asks for it: "we need an index for it", "it still needs tests"', () => {
    expect(askedWork('the presence query does a seq scan on prod. we need an index for it')).toContain('migration');
    expect(askedWork('it still needs tests')).toContain('test');
    expect(askedWork('this needs a migration')).toContain('migration');
  });

  it('asks for none when the work word is no object of the need, or the need is denied', () => {
    expect(askedWork("what's the stripe key? I need it for the webhook test in postman")).not.toContain('test');
    expect(askedWork('I need logs from prod for that request')).not.toContain('log');
    expect(askedWork("we don't need a migration for this")).not.toContain('migration');
    // The work word qualifies another noun: a test account, test data.
    expect(askedWork('I need a test account on staging to log in')).not.toContain('test');
    expect(askedWork('we need some test data')).not.toContain('test');
  });

  it('asks for none when a tool or someone reports the need', () => {
    expect(askedWork('django says this needs a migration, what did I change?')).not.toContain('migration');
    expect(askedWork("I don't think we need a migration")).not.toContain('migration');
  });
});

describe('a PR asked for as a review', () => {
  it('reads "put this up for review" and "mark it ready for review" as the PR step', () => {
    expect(askedSteps('put this up for review').has('pr')).toBe(true);
    expect(askedSteps('ok, mark it ready for review').has('pr')).toBe(true);
  });

  it('reads none in a report of one', () => {
    expect(askedSteps('I put it up for review yesterday and nobody looked').has('pr')).toBe(false);
  });
});

describe("a consumer or producer of a broker's topic", () => {
  it('is messaging work, for the rules named for the broker or for consumers', () => {
    expect(askedWork('add a consumer for the `tenant-config-changes` topic that updates the limiter')).toContain('messaging');
    expect(askedWork('write a producer for the audit topic')).toContain('messaging');
    expect([...workOf(nameWords('kafka-client-franz-go'))]).toContain('messaging');
    expect([...workOf(nameWords('kafka-idempotent-consumers'))]).toContain('messaging');
  });

  it("is none for an API's consumer or a consumer only reported on", () => {
    expect(askedWork('add a consumer of the billing API to the docs')).not.toContain('messaging');
    expect(askedWork('update the API consumer docs, they still mention the old queue endpoints')).not.toContain('messaging');
    expect(askedWork('we have a consumer lag problem on the events topic')).not.toContain('messaging');
  });
});
