/**
 * A prompt asking what something means lifts the `user` memory that says how to explain things to
 * this user, when its summary names the prompt's technology (operators/lift-explained.ts).
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import { asksMeaning, liftExplained } from '../../operators/lift-explained.js';
import { queryTerms } from '../../core/stems.js';
import { initialState, type RelevanceEstimate } from '../../core/state.js';
import { note } from '../helpers/notes.js';
import type { Note } from '../../core/note/index.js';

/** Everyday words weigh 0.3; the technologies below are rare in everyday English. */
const RARE = new Set(['rust', 'borrow', 'react', 'clickhous', 'replicatedmergetre', 'python', 'groupbi', 'mergetre', 'distribut']);
const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
  live: 40,
  df: new Map(stems.map((s) => [s, 3])),
  info: new Map(stems.map((s) => [s, RARE.has(s) ? 0.9 : 0.3])),
});

const memory = (type: string, description: string, body: string): Note =>
  note({ id: undefined, name: 'user-role', description, metadata: { type } }, body, 'documents/user-role.md');

const ROLE = memory(
  'user',
  'User is a senior Go engineer who started Rust in 2026: explain Rust borrow and async problems via Go analogies',
  'Knows Go, Python and SQL well.\n\n**How to apply:** When a Rust compiler error comes up, walk through the ownership step by step.',
);

describe('asksMeaning', () => {
  it('reads a request for what something means', () => {
    for (const p of [
      'can you explain what this wants from me?',
      'what does this mean, is it going to drop the database??',
      'what is this even telling me??',
      "what's this doing exactly?",
      "what is react doing here? I don't get the rules for when effects run",
      'I only added an early return. why does react care?',
      'help me understand the lifetimes here',
      'what does this borrow error mean',
      'what does E0502 mean',
      "I still don't get why it borrows",
    ])
      expect([p, asksMeaning(p)]).toEqual([p, true]);
  });

  it('reads none in SQL EXPLAIN, a tour of the code, or a request for work', () => {
    for (const p of [
      'explain analyze shows 1.8s on the presence query',
      'run explain on the ingest query, it is slow',
      'explain the async refactor in the commit message',
      "I don't get any logs from the async worker",
      'walk me through how the android app decides which notes to prefetch',
      'fix the flaky rollup test',
    ])
      expect([p, asksMeaning(p)]).toEqual([p, false]);
  });
});

/** The relevance of a note after the lift, from an estimate of 0.2 (unsure) for the query. */
function lifted(n: Note, query: string): RelevanceEstimate {
  const relevance = new Map<string, RelevanceEstimate>([[n.key, { p: 0.2, source: 'lexical', features: null }]]);
  const weighed = queryTerms(query).map((t) => ({ ...t, info: RARE.has(t.stem) ? 0.9 : 0.3, df: 3, specific: false, everyday: false }));
  liftExplained(relevance, [{ note: n, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }], query, weighed);
  return relevance.get(n.key)!;
}

describe('the memory on how to explain to the user', () => {
  const error = 'in Go it would just work: cannot borrow `self.pending` as mutable';

  it('is lifted for a question about what its technology means', () => {
    expect(lifted(ROLE, `can you explain this? ${error}`)).toMatchObject({ p: ASKED_STEP_SURE, source: 'asked-meaning' });
    expect(lifted(ROLE, error).p).toBe(0.2);
  });

  it('is not lifted for a question about a technology its summary does not name', () => {
    expect(lifted(ROLE, 'explain Distributed vs ReplicatedMergeTree tables in ClickHouse to me').p).toBe(0.2);
  });

  it('is not lifted for a technology only its body names (what the user knows well)', () => {
    expect(lifted(ROLE, "what's this doing exactly? python groupby over the alerts").p).toBe(0.2);
  });

  it('is a memory about the user: a feedback rule that says "explain" is not lifted', () => {
    const rule = memory('feedback', 'Explain Rust borrow errors in the PR description', 'Rule.\n\n**How to apply:** PRs.');
    expect(lifted(rule, 'can you explain this rust borrow error?').p).toBe(0.2);
  });

  it('is lifted inside the relevance stage', async () => {
    // A long paste the memory shares a word or two of: the estimate alone is unsure of it.
    const paste = [
      'I have read it three times. cannot borrow `self.pending` as mutable because it is also borrowed as immutable',
      '--> compactor/src/segment.rs:88:9 | 86 | let head = self.pending.first(); | immutable borrow occurs here',
      '87 | if head.is_some() { 88 | self.pending.push(rec); | mutable borrow occurs here',
    ].join(' ');
    const estimate = async (query: string): Promise<RelevanceEstimate> => {
      const candidates = [{ note: ROLE, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }];
      const s = await lastValueFrom(
        of({ ...initialState(query, []), candidates }).pipe(
          estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
        ),
      );
      return s.relevance.get(ROLE.key)!;
    };
    expect((await estimate(paste)).p).toBeLessThan(ASKED_STEP_SURE);
    expect(await estimate(`can you explain this? ${paste}`)).toMatchObject({ p: ASKED_STEP_SURE, source: 'asked-meaning' });
  });
});
