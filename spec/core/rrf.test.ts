import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { reciprocalRankFusion, RRF_K, type RankedList } from '../../core/rrf.js';

interface Doc {
  id: string;
  from?: string;
}

const keyOf = (d: Doc): string => d.id;
const docs = (...ids: string[]): Doc[] => ids.map((id) => ({ id }));
const list = (arm: string, ...ids: string[]): RankedList<Doc> => ({ arm, items: docs(...ids) });

describe('reciprocalRankFusion', () => {
  it('uses k = 60 by default', () => {
    expect(RRF_K).toBe(60);
  });

  it('scores a single arm as 1/(60 + rank) with 1-based ranks', () => {
    const out = reciprocalRankFusion([list('vector', 'a', 'b', 'c')], keyOf);
    expect(out.map((f) => [f.key, f.score])).toEqual([
      ['a', 1 / 61],
      ['b', 1 / 62],
      ['c', 1 / 63],
    ]);
    expect(out.map((f) => f.ranks)).toEqual([{ vector: 1 }, { vector: 2 }, { vector: 3 }]);
  });

  it('sums the contributions of every arm that returned the doc', () => {
    const out = reciprocalRankFusion([list('vector', 'a', 'b'), list('bm25', 'c', 'b')], keyOf);
    const b = out.find((f) => f.key === 'b');
    expect(b?.score).toBeCloseTo(1 / 62 + 1 / 62, 15);
    expect(b?.ranks).toEqual({ vector: 2, bm25: 2 });
  });

  it('honours a custom k', () => {
    const out = reciprocalRankFusion([list('vector', 'a', 'b')], keyOf, 1);
    expect(out.map((f) => f.score)).toEqual([1 / 2, 1 / 3]);
  });

  it('ranks a doc found by two arms above a doc found by one arm at the same rank', () => {
    // a: rank 1 in vector only; b: rank 1 in bm25 and rank 2 in vector.
    const out = reciprocalRankFusion([list('vector', 'a', 'b'), list('bm25', 'b', 'c')], keyOf);
    expect(out.map((f) => f.key)).toEqual(['b', 'a', 'c']);
    expect(out[0]!.score).toBeGreaterThan(out[1]!.score);
  });

  it('keeps the first-seen object for a key', () => {
    const first: Doc = { id: 'x', from: 'vector' };
    const second: Doc = { id: 'x', from: 'bm25' };
    const out = reciprocalRankFusion(
      [
        { arm: 'vector', items: [first] },
        { arm: 'bm25', items: [second] },
      ],
      keyOf,
    );
    expect(out).toHaveLength(1);
    expect(out[0]!.item).toBe(first);
  });

  it('is stable: ties keep first-seen order', () => {
    const ab = reciprocalRankFusion([list('vector', 'a'), list('bm25', 'b'), list('graph', 'c')], keyOf);
    expect(ab.map((f) => f.key)).toEqual(['a', 'b', 'c']);
    const ba = reciprocalRankFusion([list('graph', 'c'), list('bm25', 'b'), list('vector', 'a')], keyOf);
    expect(ba.map((f) => f.key)).toEqual(['c', 'b', 'a']);
  });

  it('counts a key repeated within one list once, at its best rank', () => {
    const out = reciprocalRankFusion([list('vector', 'a', 'a', 'b')], keyOf);
    expect(out.map((f) => [f.key, f.score])).toEqual([
      ['a', 1 / 61],
      ['b', 1 / 63],
    ]);
    expect(out[0]!.ranks).toEqual({ vector: 1 });
  });

  it('returns [] for no lists and for empty lists', () => {
    expect(reciprocalRankFusion<Doc>([], keyOf)).toEqual([]);
    expect(reciprocalRankFusion<Doc>([list('vector'), list('bm25')], keyOf)).toEqual([]);
  });
});

describe('reciprocalRankFusion properties', () => {
  const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  /** Up to 5 arms of up to 10 keys from a small alphabet, so overlaps and in-list repeats are common. */
  const armsArb = fc.array(fc.array(fc.constantFrom(...KEYS), { maxLength: 10 }), { maxLength: 5 });
  const toLists = (arms: string[][], prefix = 'arm'): RankedList<Doc>[] =>
    arms.map((ids, i) => ({ arm: `${prefix}${i}`, items: docs(...ids) }));
  const kArb = fc.integer({ min: 0, max: 100 });

  it('contains each distinct key exactly once', () => {
    fc.assert(
      fc.property(armsArb, kArb, (arms, k) => {
        const out = reciprocalRankFusion(toLists(arms), keyOf, k + 1);
        const keys = out.map((f) => f.key);
        expect(new Set(keys).size).toBe(keys.length);
        expect([...keys].sort()).toEqual([...new Set(arms.flat())].sort());
      }),
    );
  });

  it('emits scores in non-increasing order', () => {
    fc.assert(
      fc.property(armsArb, kArb, (arms, k) => {
        const out = reciprocalRankFusion(toLists(arms), keyOf, k + 1);
        for (let i = 1; i < out.length; i += 1) expect(out[i]!.score).toBeLessThanOrEqual(out[i - 1]!.score);
      }),
    );
  });

  it('scores each doc as the sum of 1/(k + first rank) over the arms that hold it', () => {
    fc.assert(
      fc.property(armsArb, (arms) => {
        const out = reciprocalRankFusion(toLists(arms), keyOf);
        for (const f of out) {
          let expected = 0;
          for (const ids of arms) {
            const i = ids.indexOf(f.key);
            if (i >= 0) expected += 1 / (RRF_K + i + 1);
          }
          expect(f.score).toBeCloseTo(expected, 12);
        }
      }),
    );
  });

  it('never scores a doc above arms/(k+1)', () => {
    fc.assert(
      fc.property(armsArb, kArb, (arms, k0) => {
        const k = k0 + 1;
        const out = reciprocalRankFusion(toLists(arms), keyOf, k);
        // 1e-12 absorbs float summation error only; a doc counted twice in one arm would exceed it by ≥ 1/(k+10).
        for (const f of out) expect(f.score).toBeLessThanOrEqual(arms.length / (k + 1) + 1e-12);
      }),
    );
  });

  it('never lowers an existing doc’s score when an arm is added', () => {
    fc.assert(
      fc.property(armsArb, fc.array(fc.constantFrom(...KEYS), { maxLength: 10 }), (arms, extra) => {
        const before = reciprocalRankFusion(toLists(arms), keyOf);
        const after = reciprocalRankFusion([...toLists(arms), { arm: 'extra', items: docs(...extra) }], keyOf);
        const afterByKey = new Map(after.map((f) => [f.key, f.score]));
        for (const f of before) expect(afterByKey.get(f.key)!).toBeGreaterThanOrEqual(f.score);
      }),
    );
  });
});
