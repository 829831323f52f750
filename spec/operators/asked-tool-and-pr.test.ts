/**
 * Which rule a request for work lifts when it names its tool ("ok, now rspec it"), and a PR rule
 * named in words (`pull-requests`) for "open a pr" (operators/lift-asked-steps.ts, action/).
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import { askedWork } from '../../operators/action/asked-work.js';
import { nameStepStems } from '../../operators/action/git-steps.js';
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
