import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { cosine, mmrSelect, MMR_LAMBDA, type MmrItem } from '../../../operators/math/mmr.js';
import { sigmoid } from '../../../operators/math/boosts.js';

type Vec = readonly number[];
const item = (key: string, score: number): MmrItem => ({ key, score });
const keys = (items: readonly MmrItem[]): string[] => items.map((i) => i.key);

const DUP_VEC: Vec = [0.6, 0.8, 0];
const ALT1_VEC: Vec = [1, 0, 0];
const ALT2_VEC: Vec = [0, 0, 1];
/** The reference fixture: five near-duplicates with CE logit 8, two distinct notes with logit 2. */
const DUPS = ['dup-0', 'dup-1', 'dup-2', 'dup-3', 'dup-4'];
const FIXTURE: MmrItem[] = [...DUPS.map((k) => item(k, sigmoid(8))), item('alt-1', sigmoid(2)), item('alt-2', sigmoid(2))];
const FIXTURE_VECTORS = new Map<string, Vec>([...DUPS.map((k): [string, Vec] => [k, DUP_VEC]), ['alt-1', ALT1_VEC], ['alt-2', ALT2_VEC]]);
const dupCount = (items: readonly MmrItem[]): number => items.filter((i) => i.key.startsWith('dup-')).length;

describe('cosine', () => {
  it('is 1 for parallel, 0 for orthogonal and −1 for opposite vectors', () => {
    expect(cosine([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [0, 5])).toBe(0);
    expect(cosine([1, 1], [-1, -1])).toBeCloseTo(-1, 12);
  });

  it('does not depend on vector length', () => {
    expect(cosine([0.6, 0.8, 0], [1, 0, 0])).toBeCloseTo(0.6, 12);
    expect(cosine([6, 8, 0], [3, 0, 0])).toBeCloseTo(0.6, 12);
  });

  it('is 0 (not NaN) when either vector is zero', () => {
    expect(cosine([0, 0, 0], [1, 2, 3])).toBe(0);
    expect(cosine([1, 2, 3], [0, 0, 0])).toBe(0);
    expect(cosine([], [])).toBe(0);
  });
});

describe('mmrSelect', () => {
  it('uses λ = 0.7 by default', () => {
    expect(MMR_LAMBDA).toBe(0.7);
  });

  it('keeps at most one near-duplicate, starting with the top item', () => {
    const out = mmrSelect(FIXTURE, 3, FIXTURE_VECTORS, null);
    expect(out).toHaveLength(3);
    expect(out[0]!.key).toBe('dup-0');
    expect(dupCount(out)).toBeLessThanOrEqual(1);
    expect(keys(out)).toEqual(['dup-0', 'alt-2', 'alt-1']);
  });

  it('keeps whatever item is on top when the input is reordered', () => {
    const reordered = [FIXTURE[5]!, ...FIXTURE.slice(0, 5), FIXTURE[6]!];
    expect(mmrSelect(reordered, 3, FIXTURE_VECTORS, null)[0]!.key).toBe('alt-1');
  });

  it('returns items in score order at λ = 1', () => {
    expect(keys(mmrSelect(FIXTURE, 3, FIXTURE_VECTORS, null, 1))).toEqual(['dup-0', 'dup-1', 'dup-2']);
  });

  it('keeps exactly one near-duplicate at λ = 0', () => {
    const out = mmrSelect(FIXTURE, 3, FIXTURE_VECTORS, null, 0);
    expect(out[0]!.key).toBe('dup-0');
    expect(dupCount(out)).toBe(1);
    expect(new Set(keys(out))).toEqual(new Set(['dup-0', 'alt-1', 'alt-2']));
  });

  it('clamps λ into 0..1 (5 ≡ 1, −2 ≡ 0)', () => {
    expect(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, 5))).toEqual(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, 1)));
    expect(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, -2))).toEqual(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, 0)));
    // The two ends really differ, so the equalities above are not vacuous.
    expect(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, 1))).not.toEqual(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, 0)));
  });

  it('clamps λ where an unclamped λ would pick differently', () => {
    const vectors = new Map<string, Vec>([
      ['a', [1, 0, 0]],
      ['b', [0, 1, 0]],
      ['c', [1, 0.1, 0]],
      ['d', [0, 0, 1]],
    ]);
    // λ = 1 ranks by score alone (b); an unclamped 5 would reward similarity to a (c).
    const hi = [item('a', 1), item('b', 0.9), item('c', 0.8)];
    expect(keys(mmrSelect(hi, 2, vectors, null, 5))).toEqual(['a', 'b']);
    // λ = 0 ties b and d on diversity and keeps the earlier b; an unclamped −2 would reward the low score (d).
    const lo = [item('a', 1), item('b', 0.9), item('d', 0.1)];
    expect(keys(mmrSelect(lo, 2, vectors, null, -2))).toEqual(['a', 'b']);
  });

  it('returns a plain slice without vectors', () => {
    expect(mmrSelect(FIXTURE, 3, null, null)).toEqual(FIXTURE.slice(0, 3));
    expect(mmrSelect(FIXTURE, 3, new Map(), null)).toEqual(FIXTURE.slice(0, 3));
  });

  it('returns a plain slice when the top item has no vector', () => {
    const vectors = new Map(FIXTURE_VECTORS);
    vectors.delete('dup-0');
    expect(keys(mmrSelect(FIXTURE, 3, vectors, null))).toEqual(['dup-0', 'dup-1', 'dup-2']);
  });

  it('fills leftover slots with vectorless items, in order, after the vector-bearing ones', () => {
    const items = [item('a', 3), item('nv-1', 2.5), item('b', 2), item('nv-2', 1.5), item('c', 1)];
    const vectors = new Map<string, Vec>([
      ['a', [1, 0, 0]],
      ['b', [0, 1, 0]],
      ['c', [0, 0, 1]],
    ]);
    expect(keys(mmrSelect(items, 5, vectors, null))).toEqual(['a', 'b', 'c', 'nv-1', 'nv-2']);
    expect(keys(mmrSelect(items, 4, vectors, null))).toEqual(['a', 'b', 'c', 'nv-1']);
    expect(keys(mmrSelect(items, 2, vectors, null))).toEqual(['a', 'b']);
  });

  it('returns [] for k = 0 and for empty input', () => {
    expect(mmrSelect(FIXTURE, 0, FIXTURE_VECTORS, null)).toEqual([]);
    expect(mmrSelect([], 3, FIXTURE_VECTORS, null)).toEqual([]);
  });

  it('returns every item when k exceeds the input, and the head alone at k = 1', () => {
    const all = mmrSelect(FIXTURE, 100, FIXTURE_VECTORS, null);
    expect(new Set(keys(all))).toEqual(new Set(keys(FIXTURE)));
    expect(all).toHaveLength(FIXTURE.length);
    expect(keys(mmrSelect(FIXTURE, 1, FIXTURE_VECTORS, null))).toEqual(['dup-0']);
  });

  it('takes relevance from the rank scores, not from cosine to the query', () => {
    const items = [item('a', 1), item('c', 0.9), item('b', 0.1)];
    const vectors = new Map<string, Vec>([
      ['a', [1, 0, 0]],
      ['b', [0, 1, 0]],
      ['c', [0, 0, 1]],
    ]);
    // The query points at b; the scores prefer c.
    expect(keys(mmrSelect(items, 2, vectors, [0, 1, 0]))).toEqual(['a', 'c']);
  });

  it('falls back to cosine with the query when every score is zero', () => {
    const items = [item('a', 0), item('c', 0), item('b', 0)];
    const vectors = new Map<string, Vec>([
      ['a', [1, 0, 0]],
      ['b', [0, 1, 0]],
      ['c', [0, 0, 1]],
    ]);
    expect(keys(mmrSelect(items, 2, vectors, [0, 1, 0]))).toEqual(['a', 'b']);
    expect(keys(mmrSelect(items, 2, vectors, [0, 0, 1]))).toEqual(['a', 'c']);
  });

  it('is invariant to scaling every score (×1000)', () => {
    const scaled = FIXTURE.map((i) => item(i.key, i.score * 1000));
    for (const lam of [0, 0.3, 0.7, 1]) {
      expect(keys(mmrSelect(scaled, 4, FIXTURE_VECTORS, null, lam))).toEqual(keys(mmrSelect(FIXTURE, 4, FIXTURE_VECTORS, null, lam)));
    }
  });
});

describe('mmrSelect properties', () => {
  const vecArb = fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 3, maxLength: 3 });
  /** Distinct keys, integer scores sorted best first, and a vector (or none) per item. */
  const caseArb = fc
    .array(fc.record({ score: fc.integer({ min: 0, max: 100 }), vec: fc.option(vecArb, { nil: null }) }), { maxLength: 12 })
    .map((rows) => {
      const sorted = [...rows].sort((x, y) => y.score - x.score);
      const items = sorted.map((r, i) => item(`k${i}`, r.score));
      const vectors = new Map<string, Vec>();
      sorted.forEach((r, i) => {
        if (r.vec) vectors.set(`k${i}`, r.vec);
      });
      return { items, vectors };
    });
  const kArb = fc.integer({ min: 0, max: 15 });
  const lamArb = fc.double({ min: 0, max: 1, noNaN: true });

  it('selects min(k, n) distinct input items, led by the top item', () => {
    fc.assert(
      fc.property(caseArb, kArb, lamArb, ({ items, vectors }, k, lam) => {
        const out = mmrSelect(items, k, vectors, [1, 0, 0], lam);
        expect(out).toHaveLength(Math.min(k, items.length));
        expect(new Set(keys(out)).size).toBe(out.length);
        for (const o of out) expect(items).toContain(o);
        if (out.length > 0) expect(out[0]).toBe(items[0]);
      }),
    );
  });

  it('picks the same items when every score is multiplied by 1000', () => {
    fc.assert(
      fc.property(caseArb, kArb, lamArb, ({ items, vectors }, k, lam) => {
        const scaled = items.map((i) => item(i.key, i.score * 1000));
        expect(keys(mmrSelect(scaled, k, vectors, [0, 1, 0], lam))).toEqual(keys(mmrSelect(items, k, vectors, [0, 1, 0], lam)));
      }),
    );
  });

  it('at λ = 1 keeps score order among items with vectors', () => {
    fc.assert(
      fc.property(caseArb, kArb, ({ items, vectors }, k) => {
        const withVec = items.filter((i) => vectors.has(i.key));
        // Ties are broken by position (strict >), so plain input order is expected even with equal scores.
        expect(keys(mmrSelect(withVec, k, vectors, null, 1))).toEqual(keys(withVec.slice(0, k)));
      }),
    );
  });
});
