import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { estimateRelevance, GENERIC_ONLY_MAX, LINK_SHARE, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { LEXICAL_WINDOW, RERANK_WINDOW } from '../../operators/rerank-top.js';
import { abstain } from '../../operators/abstain.js';
import { applyBoosts } from '../../operators/apply-boosts.js';
import { queryTerms } from '../../core/stems.js';
import { sigmoid } from '../../operators/math/boosts.js';
import { initialState, type RecallState } from '../../core/state.js';
import { BOOST_ALPHAS } from '../../pipeline/config/config.js';
import type { BoostName } from '../../core/types.js';
import { note } from '../helpers/notes.js';

const ALPHAS = Object.fromEntries(Object.keys(BOOST_ALPHAS).map((k) => [k, 0])) as Record<BoostName, number>;
const ctx = () => ({ nowMs: 0, queryTags: [], currentProject: '', domainHint: '' });

function stateOf(query: string, notes: { id: string; title: string; body: string; temporal?: boolean }[]): RecallState {
  const s = initialState(query, []);
  return {
    ...s,
    candidates: notes.map((n, i) => ({
      note: note({ id: n.id, title: n.title }, n.body, `documents/${n.id}.md`),
      rrf: 1 / (61 + i),
      evidence: 1 / (i + 1),
      ranks: n.temporal ? { temporal: i + 1 } : { bm25: i + 1 },
    })),
  };
}

/** Every stem in `df` notes of a 100-note KB; information from the table (default 0.7). */
function weigh(df: Record<string, number>, info: Record<string, number> = {}): EstimateRelevanceOptions['weigh'] {
  return (stems) => ({ live: 100, df: new Map(stems.map((s) => [s, df[s] ?? 0])), info: new Map(stems.map((s) => [s, info[s] ?? 0.7])) });
}

const NOTES = [
  { id: 'pool', title: 'Redis connection pool exhausted under burst load', body: 'Size the redis pool to peak concurrency.' },
  { id: 'gateway', title: 'Gateway 504 cascade', body: 'Upstream waits on the shared pool surfaced as 504s.' },
  { id: 'other', title: 'Terraform state lock stuck', body: 'force-unlock after a cancelled run.' },
];

async function run(
  query: string,
  opts: Partial<EstimateRelevanceOptions> = {},
  notes = NOTES,
  ce: Map<string, number> | null = null,
): Promise<RecallState> {
  const terms = queryTerms(query);
  const out$ = of({ ...stateOf(query, notes), ce }).pipe(
    estimateRelevance({ terms, weigh: weigh({ redi: 2, pool: 3, exhaust: 1, burst: 1 }), dateWindow: false, limit: 10, ...opts }),
    applyBoosts({ alphas: ALPHAS, context: ctx }),
  );
  return lastValueFrom(out$);
}

describe('estimateRelevance', () => {
  it('gives each candidate an absolute relevance that candidates sharing nothing with the query do not change', async () => {
    const all = await run('redis pool exhausted under burst load');
    const alone = await run('redis pool exhausted under burst load', {}, [NOTES[0]!]);
    const withUnrelated = await run('redis pool exhausted under burst load', {}, [NOTES[0]!, NOTES[2]!]);
    expect(withUnrelated.relevance.get('pool')!.p).toBeCloseTo(alone.relevance.get('pool')!.p, 12);
    // Only through its standout: a neighbour that matches part of the query lowers it a little.
    expect(Math.abs(all.relevance.get('pool')!.p - alone.relevance.get('pool')!.p)).toBeLessThan(0.01);
    expect(all.relevance.get('pool')!.p).toBeGreaterThan(0.9);
    expect(all.relevance.get('other')!.p).toBeLessThan(0.1);
    // The ranking component is still relative; the relevance is not.
    expect(all.scored.find((c) => c.note.key === 'pool')!.base).toBe(1);
  });

  it('uses sigmoid(logit) for a note the cross-encoder scored', async () => {
    const s = await run('redis pool', {}, NOTES, new Map([['other', 3]]));
    expect(s.relevance.get('other')).toMatchObject({ p: sigmoid(3), source: 'cross-encoder' });
    expect(s.relevance.get('pool')!.source).toBe('lexical');
  });

  it('gives a note the KB links to a clearly relevant one a share of that relevance', async () => {
    const links = (): Map<string, Set<string>> =>
      new Map([
        ['documents/pool.md', new Set(['documents/gateway.md'])],
        ['documents/gateway.md', new Set(['documents/pool.md'])],
      ]);
    const s = await run('redis pool exhausted under burst load', { links });
    const pool = s.relevance.get('pool')!.p;
    expect(s.relevance.get('gateway')).toMatchObject({ source: 'linked' });
    expect(s.relevance.get('gateway')!.p).toBeCloseTo(pool * LINK_SHARE, 12);
    // The ranking follows the lift: the score never multiplies less than the relevance it shows.
    const gateway = s.scored.find((c) => c.note.key === 'gateway')!;
    expect(gateway.relevanceFactor).toBeGreaterThanOrEqual(gateway.relevance);
    // With the cross-encoder's probability as the base, a link lifts the relevance for the floor and
    // leaves the score alone (it used to multiply the score by the lift, which is below 1).
    const ce = await run(
      'redis pool exhausted under burst load',
      { links },
      NOTES,
      new Map([
        ['pool', 4],
        ['gateway', -2],
      ]),
    );
    expect(ce.relevance.get('gateway')!.source).toBe('linked');
    const scored = ce.scored.find((c) => c.note.key === 'gateway')!;
    expect([scored.relevanceFactor, scored.score]).toEqual([1, scored.base]);
  });

  it('lifts a linked root cause that names something of the query, but only from a clearly relevant note', async () => {
    const notes = [
      { id: 'gateway', title: 'API gateway returns 504 during traffic spikes', body: 'The gateway times out on upstream calls.' },
      { id: 'cause', title: 'Redis pool exhaustion under burst', body: 'Size the client pool to peak concurrency; the gateway saw 504s.' },
    ];
    const links = (): Map<string, Set<string>> =>
      new Map([
        ['documents/gateway.md', new Set(['documents/cause.md'])],
        ['documents/cause.md', new Set(['documents/gateway.md'])],
      ]);
    const s = await run(
      'gateway 504 errors during traffic spikes',
      { links, weigh: weigh({ gateway: 1, '504': 1, spike: 1, traffic: 1 }) },
      notes,
    );
    const gateway = s.relevance.get('gateway')!.p;
    expect(gateway).toBeGreaterThan(0.75);
    expect(s.relevance.get('cause')).toMatchObject({ source: 'linked' });
    expect(s.relevance.get('cause')!.p).toBeCloseTo(gateway * LINK_SHARE, 12);
    // A query the KB does not answer lends its neighbours nothing to clear a floor with.
    const off = await run('kafka consumer rebalancing', { links }, notes);
    expect(Math.max(...[...off.relevance.values()].map((e) => e.p))).toBeLessThan(0.5);
  });

  it('counts a phrase of the query that the note repeats as specific, though neither word is alone', async () => {
    const notes = [
      { id: 'pool', title: 'Fix postgres connection pool exhaustion in pytest', body: 'one engine per session' },
      { id: 'apart', title: 'Idle sessions', body: 'the pool ran dry and every connection waited' },
    ];
    const common = weigh({ connect: 5, pool: 5 }, { connect: 0.3, pool: 0.3 });
    const s = await run('connection pool', { weigh: common }, notes);
    expect(s.relevance.get('pool')!.features!.specificCovered).toBe(1);
    expect(s.relevance.get('apart')!.features!.specificCovered).toBe(0);
    expect(s.relevance.get('apart')!.p).toBeLessThanOrEqual(GENERIC_ONLY_MAX);
  });

  it('gives a query word the document frequency of the form a note contains it by ("authentication" through "auth")', async () => {
    const notes = [{ id: 'auth', title: 'Redis auth', body: 'auth tokens for redis expire hourly' }];
    const s = await run('redis authentication', { weigh: weigh({ redi: 2, auth: 40 }) }, notes);
    expect(s.weighed.find((t) => t.word === 'authentication')!.df).toBe(40);
  });

  it('does not let an everyday word stand for a longer one ("paint" is not "paintball"), as an abbreviation does', async () => {
    const notes = [{ id: 'paint', title: 'Painting', body: 'John: I paint landscapes on weekends' }];
    const s = await run(
      'paintball weekends',
      { weigh: weigh({ paint: 5, weekend: 3 }, { paint: 0.52, paintbal: 0.9, weekend: 0.55 }) },
      notes,
    );
    expect(s.weighed.find((t) => t.word === 'paintball')!.df).toBe(0);
    expect(s.relevance.get('paint')!.features!.specificCovered).toBe(0);
  });

  it('records a failed document-frequency lookup once, and then neither widens nor applies the names rule', async () => {
    let calls = 0;
    const failing: EstimateRelevanceOptions['weigh'] = (stems, opts) => {
      if (!opts?.infoOnly) calls += 1; // index reads only
      return { live: 100, df: new Error('index busy'), info: new Map(stems.map((x) => [x, 0.7])) };
    };
    const s = await run('redis snapshot taken', { weigh: failing }, [{ id: 'take', title: 'Redis', body: 'take a redis snapshot' }]);
    expect(calls).toBe(1);
    expect(s.degraded.filter((d) => d.stage === 'relevance').map((d) => d.message)).toEqual([
      'document frequencies unavailable: index busy',
    ]);
    expect(s.weighed.every((t) => t.df === 1 && (!t.proper || t.specific))).toBe(true);
  });

  it('makes the date window the topic when every other query word is generic', async () => {
    const notes = [{ id: 'recent', title: 'Cache mount speeds up builds', body: 'x', temporal: true }];
    const terms = queryTerms('what changed');
    const s = await lastValueFrom(
      of(stateOf('what changed last week', notes)).pipe(
        estimateRelevance({ terms, weigh: weigh({}, { chang: 0.3 }), dateWindow: true, limit: 10 }),
      ),
    );
    expect(s.relevance.get('recent')).toMatchObject({ source: 'date-window', p: 0.75 });
  });

  it('estimates the scoring window only (the lexical window, or the cross-encoder window when it scored); the rest are under any floor', async () => {
    // The note that matches best sits at fusion rank 26: inside the lexical window, outside the model's.
    const filler = Array.from({ length: 25 }, (_, i) => ({ id: `f${i}`, title: `Terraform note ${i}`, body: 'state lock' }));
    const notes = [...filler, NOTES[0]!];
    expect(LEXICAL_WINDOW).toBeGreaterThanOrEqual(26);
    expect(RERANK_WINDOW).toBeLessThan(26);
    const lexical = await run('redis pool exhausted under burst load', {}, notes);
    expect(lexical.relevance.get('pool')!.p).toBeGreaterThan(0.9);
    // Scored by the cross-encoder (low logits on the top 20): rank 26 was never seen, so it cannot clear a floor.
    const ce = new Map(filler.slice(0, RERANK_WINDOW).map((n) => [n.id, -6] as [string, number]));
    const rescored = await run('redis pool exhausted under burst load', {}, notes, ce);
    expect(rescored.relevance.get('pool')).toEqual({ p: 0, source: 'lexical', features: null });
    // A limit past the window widens it.
    const wide = await run('redis pool exhausted under burst load', { limit: 30 }, notes, ce);
    expect(wide.relevance.get('pool')!.p).toBeGreaterThan(0.9);
  });

  it('degrades, never fails, when the weights cannot be read', async () => {
    const s = await run('redis pool', {
      weigh: () => {
        throw new Error('database is locked');
      },
    });
    expect(s.degraded).toEqual([
      expect.objectContaining({ stage: 'relevance', reason: 'error', message: expect.stringContaining('database is locked') }),
    ]);
    expect(s.relevance.size).toBe(3);
  });

  it('is synchronous: one state in, one state out at the same frame (marble)', () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable }) => {
      const src = cold('a|', { a: stateOf('redis pool', NOTES) });
      const out = src.pipe(
        estimateRelevance({ terms: queryTerms('redis pool'), weigh: weigh({ redi: 2, pool: 3 }), dateWindow: false, limit: 10 }),
      );
      expectObservable(out.pipe()).toBe('a|', { a: expect.objectContaining({ weighed: expect.any(Array) }) });
    });
  });

  describe("another conversation's John", () => {
    // A conversation KB: "john" heads 60 of its 100 notes (his turns). The question is about a John
    // who supports veterans; this KB's John never mentions them.
    const JOHN = [
      { id: 'turn', title: 'John: I did a lot for my family this year', body: 'John: I did a lot for my family this year.' },
      { id: 'maria', title: 'Maria: How was the trip?', body: 'Maria: How was the trip?' },
    ];
    const query = 'What did John do for the veterans this year?';
    const info = { john: 1, veteran: 0.68, year: 0.4 };
    const runKb = (df: Record<string, number>): Promise<RecallState> =>
      run(query, { weigh: weigh({ john: 60, year: 9, ...df }, info) }, JOHN);

    it('does not let the name alone make a note relevant when the KB knows nothing else specific of the query', async () => {
      const s = await runKb({ veteran: 0 });
      expect(s.weighed.find((t) => t.word === 'john')!.specific).toBe(false);
      expect(s.relevance.get('turn')!.p).toBeLessThanOrEqual(GENERIC_ONLY_MAX);
      const out = await lastValueFrom(of(s).pipe(abstain({ floor: 0.5, keepWeak: false })));
      expect(out.selected).toEqual([]);
      expect(out.abstained).toMatch(
        /^no note mentions "veterans"; a name alone \("john"\) does not make a note about the rest; best match/,
      );
    });

    it('still counts the name when the KB does know the subject (another note mentions veterans)', async () => {
      const s = await runKb({ veteran: 3 });
      expect(s.weighed.find((t) => t.word === 'john')!.specific).toBe(true);
      expect(s.relevance.get('turn')!.p).toBeGreaterThan(GENERIC_ONLY_MAX);
    });

    it("ranks with the speaker's name in the title, and leaves it out of the absolute relevance", async () => {
      const s = await runKb({ veteran: 3 });
      const e = s.relevance.get('turn')!;
      expect(e.features!.titleWithLabels).toBeGreaterThan(e.features!.titleCoverage);
      expect(e.ranking!).toBeGreaterThan(e.p);
      const scored = s.scored.find((c) => c.note.key === 'turn')!;
      expect(scored.relevance).toBe(e.p);
      expect(scored.score).toBeCloseTo(scored.base * e.ranking!, 12);
    });
  });
});

describe('abstain', () => {
  async function floored(query: string, floor: number, keepWeak = false): Promise<RecallState> {
    const s = await run(query);
    return lastValueFrom(of({ ...s, selected: s.scored }).pipe(abstain({ floor, keepWeak })));
  }

  it('keeps only what clears the floor and records the rest as drops', async () => {
    const s = await floored('redis pool exhausted under burst load', 0.5);
    expect(s.selected.map((c) => c.note.key)).toEqual(['pool']);
    expect(
      s.drops
        .filter((d) => d.stage === 'relevance-floor')
        .map((d) => d.key)
        .sort(),
    ).toEqual(['gateway', 'other']);
    expect(s.abstained).toBeNull();
  });

  it('returns nothing, with a reason naming the specific words the KB lacks, when nothing clears it', async () => {
    const s = await floored('kafka consumer rebalancing', 0.5);
    expect(s.selected).toEqual([]);
    expect(s.abstained).toMatch(
      /^no note mentions "kafka", "consumer", "rebalancing"; best match \S+ has relevance 0\.\d\d < floor 0\.50: it shares no specific word with the query$/,
    );
  });

  it('keeps weak matches aside for the CLI when asked', async () => {
    const s = await floored('kafka consumer rebalancing', 0.5, true);
    expect(s.selected).toEqual([]);
    expect(s.weak.length).toBe(3);
  });

  it('is off at floor 0', async () => {
    const s = await floored('kafka consumer rebalancing', 0);
    expect(s.selected.length).toBe(3);
    expect(s.abstained).toBeNull();
  });
});
