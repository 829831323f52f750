import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { applyBoosts, TITLE_PHRASE_WEIGHT } from '../../operators/apply-boosts.js';
import { isExcerptTitle, titlePhrases } from '../../operators/title-phrases.js';
import { queryPairs, type WeightedTerm } from '../../operators/math/index.js';
import { contentStemSequence, queryTerms } from '../../core/stems.js';
import { initialState, type RecallState } from '../../core/state.js';
import { BOOST_ALPHAS } from '../../pipeline/config/config.js';
import type { BoostName } from '../../core/types.js';
import { note } from '../helpers/notes.js';

const ALPHAS = Object.fromEntries(Object.keys(BOOST_ALPHAS).map((k) => [k, 0])) as Record<BoostName, number>;
const ctx = () => ({ nowMs: 0, queryTags: [], currentProject: '', domainHint: '' });

interface Doc {
  id: string;
  title: string;
  body: string;
  /** Fused evidence (the arms' scores over their best, summed). */
  evidence: number;
}

/** Every stem in `df` of 100 notes (default 6), everyday-English weight 0.6. */
const weigh =
  (df: Record<string, number> = {}): EstimateRelevanceOptions['weigh'] =>
  (stems) => ({ live: 100, df: new Map(stems.map((s) => [s, df[s] ?? 6])), info: new Map(stems.map((s) => [s, 0.6])) });

async function rank(query: string, docs: Doc[], ce: Map<string, number> | null = null): Promise<RecallState> {
  const s = initialState(query, []);
  const candidates = docs.map((d, i) => ({
    note: note({ id: d.id, title: d.title }, d.body, `documents/${d.id}.md`),
    rrf: 1 / (61 + i),
    evidence: d.evidence,
    ranks: { bm25: i + 1 },
  }));
  const terms = queryTerms(query);
  const op = estimateRelevance({ terms, sequence: contentStemSequence(query), weigh: weigh(), dateWindow: false, limit: 10 });
  return lastValueFrom(of({ ...s, candidates, ce }).pipe(op, applyBoosts({ alphas: ALPHAS, context: ctx })));
}

// The example KB's case: every note has both words (relevance saturates near 1); the entity graph
// favours the idle-session note, whose title has one of them; the pgbouncer note's title is the phrase.
const POOLING: Doc[] = [
  {
    id: 'idle',
    title: 'Postgres kills pipeline sessions idle in transaction',
    body: 'A transaction left open through the pooling layer holds locks; the pooling proxy keeps the transaction.',
    evidence: 1.98,
  },
  {
    id: 'pgbouncer',
    title: 'pgbouncer transaction pooling breaks asyncpg prepared statements',
    body: 'In transaction pooling mode the server connection changes between statements.',
    evidence: 1.24,
  },
];

describe('title phrases in the ranking', () => {
  it('ranks the note whose title repeats the query phrase above one with the words only in its body', async () => {
    const s = await rank('transaction pooling', POOLING);
    expect(s.scored.map((c) => c.note.key)).toEqual(['pgbouncer', 'idle']);
    const [top, next] = s.scored;
    expect([top!.titleFactor, next!.titleFactor]).toEqual([1 + TITLE_PHRASE_WEIGHT, 1]);
    // The relevance factor cannot tell them apart: both notes have every query word.
    expect(Math.abs(top!.relevanceFactor - next!.relevanceFactor)).toBeLessThan(0.05);
  });

  it('weighs a phrase by its share of the query: one of a long prompt moves the score little', async () => {
    const prompt =
      'our nightly import job keeps dying with prepared statement errors since we put the transaction pooling proxy ' +
      'in front of the database, and retries do not help at all';
    const s = await rank(prompt, POOLING);
    const factor = s.scored.find((c) => c.note.key === 'pgbouncer')!.titleFactor;
    expect(factor).toBeGreaterThan(1);
    expect(factor).toBeLessThan(1.2);
  });

  it('leaves a note the cross-encoder scored to the cross-encoder', async () => {
    const s = await rank('transaction pooling', POOLING, new Map([['pgbouncer', 0]]));
    expect(s.scored.find((c) => c.note.key === 'pgbouncer')!.titleFactor).toBe(1);
  });
});

const term = (stem: string, df: number, extra: Partial<WeightedTerm> = {}): WeightedTerm => ({ stem, info: 0.7, df, ...extra });
const notesOf = (titles: [string, string][]) => titles.map(([title, body], i) => ({ key: `n${i}`, title, body }));

describe('titlePhrases', () => {
  it('does not count a label that heads many titles (a speaker), and does count a frequent word in one title', () => {
    const turns = notesOf(
      Array.from({ length: 12 }, (_, i): [string, string] => [i ? `John: turn ${i}` : 'John: dog walking at dawn', 'said things']),
    );
    const labelled = new Map([
      ['john', term('john', 60)],
      ['dog', term('dog', 3)],
    ]);
    expect(titlePhrases(turns, queryPairs(['john', 'dog']), labelled, 100).get('n0')).toBe(0);
    // "only" is in 30 of 100 notes, but in one title: a word of that title, no label.
    const esm = notesOf([['Jest fails on ESM-only packages in node_modules', 'transformIgnorePatterns']]);
    const terms = new Map([
      ['esm', term('esm', 2)],
      ['onli', term('onli', 30)],
      ['packag', term('packag', 9)],
    ]);
    expect(titlePhrases(esm, queryPairs(['esm', 'onli', 'packag']), terms, 100).get('n0')).toBe(1);
  });

  it('does not count a phrase of two everyday coding words', () => {
    const n = notesOf([['Fix tests that hang', 'body']]);
    const terms = new Map([
      ['fix', term('fix', 5, { everyday: true })],
      ['test', term('test', 5, { everyday: true })],
    ]);
    expect(titlePhrases(n, queryPairs(['fix', 'test']), terms, 100).get('n0')).toBe(0);
  });

  it('gives an excerpt title (the start of a longer body line) nothing, a heading title its phrases', () => {
    const turn = 'Maria: I volunteer at the homeless shelter on';
    expect(isExcerptTitle(turn, 'Maria said on 10 April: I volunteer at the homeless shelter on weekends.')).toBe(true);
    const title = 'pgbouncer transaction pooling breaks prepared statements';
    expect(isExcerptTitle(title, `# ${title}\n\nIn transaction pooling mode …`)).toBe(false);
    expect(isExcerptTitle('Hi John', 'Maria: Hi John, how are you?')).toBe(false);
    const terms = new Map([
      ['homeless', term('homeless', 4)],
      ['shelter', term('shelter', 4)],
    ]);
    const n = notesOf([[turn, 'Maria said on 10 April: I volunteer at the homeless shelter on weekends.']]);
    expect(titlePhrases(n, queryPairs(['homeless', 'shelter']), terms, 100).get('n0')).toBe(0);
  });
});
