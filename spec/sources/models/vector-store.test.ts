import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { knn, encodeVector, decodeVector, type VectorMatrix } from '../../../sources/models/vector-store.js';

function matrix(rows: number[][]): VectorMatrix {
  const dim = rows[0]?.length ?? 0;
  const data = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => data.set(r, i * dim));
  return { paths: rows.map((_, i) => `p${i}`), dim, data, model: 'm', missing: 0, stale: 0 };
}

describe('vector store', () => {
  it('round-trips vectors through their BLOB encoding', () => {
    expect(Array.from(decodeVector(encodeVector([0.5, -1, 2])))).toEqual([0.5, -1, 2]);
  });

  it('returns the k best dot products, best first, matching a full sort', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 10 }),
        (rows, q, k) => {
          const m = matrix(rows);
          const got = knn(m, q, k);
          const f = Float32Array.from(q);
          const all = rows.map((r, i) => ({ i, s: r.reduce((acc, x, j) => acc + Math.fround(x) * f[j]!, 0) })).sort((a, b) => b.s - a.s);
          expect(got).toHaveLength(Math.min(k, rows.length));
          got.forEach((g, r) => expect(g.score).toBeCloseTo(all[r]!.s, 4));
        },
      ),
    );
  });

  it('answers nothing for a dimension mismatch, an empty matrix or k = 0', () => {
    expect(knn(matrix([[1, 0]]), [1, 0, 0], 3)).toEqual([]);
    expect(knn(matrix([]), [1], 3)).toEqual([]);
    expect(knn(matrix([[1, 0]]), [1, 0], 0)).toEqual([]);
  });
});
