/**
 * Note vectors in the index: one row per live note, recording the model that made it.
 *
 * Brute-force cosine KNN over the stored (unit-normalised) vectors: at our sizes (≤ 100k notes) a
 * flat scan of a Float32Array is a few milliseconds once the matrix is in memory, and the matrix is
 * cached per (index file, generation) in the long-lived daemon, so a recall never re-reads it.
 */
import type { SqlDatabase } from '../sqlite/index.js';

export const VECTOR_DDL = `
CREATE TABLE IF NOT EXISTS vectors (
  path TEXT PRIMARY KEY, model TEXT NOT NULL, dim INTEGER NOT NULL, content_hash TEXT NOT NULL, vec BLOB NOT NULL);
`;

export function encodeVector(v: readonly number[]): Buffer {
  return Buffer.from(new Float32Array(v).buffer);
}

export function decodeVector(b: Uint8Array): Float32Array {
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

export interface VectorMatrix {
  paths: string[];
  dim: number;
  data: Float32Array;
  model: string | null;
  /** Live notes without a vector from this model. */
  missing: number;
  /** Vectors made by another model (a reindex is needed). */
  stale: number;
}

/** Load the live notes' vectors made by `model` from an index file (read-only). */
export function loadMatrix(db: SqlDatabase, model: string): VectorMatrix {
  const rows = db
    .prepare(
      `SELECT v.path AS path, v.dim AS dim, v.vec AS vec FROM vectors v JOIN notes n ON n.path = v.path
       WHERE n.location = 'documents' AND v.model = ? AND v.content_hash = n.content_hash`,
    )
    .all(model) as { path: string; dim: number; vec: Uint8Array }[];
  const live = (db.prepare(`SELECT COUNT(*) AS c FROM notes WHERE location = 'documents'`).get() as { c: number }).c;
  const stale = (db.prepare(`SELECT COUNT(*) AS c FROM vectors WHERE model != ?`).get(model) as { c: number }).c;
  const dim = rows[0]?.dim ?? 0;
  const usable = rows.filter((r) => r.dim === dim);
  const data = new Float32Array(usable.length * dim);
  usable.forEach((r, i) => data.set(decodeVector(r.vec), i * dim));
  return { paths: usable.map((r) => r.path), dim, data, model, missing: live - usable.length, stale };
}

/** Top-k paths by dot product with a unit query vector (= cosine for unit rows). */
export function knn(m: VectorMatrix, query: readonly number[], k: number): { path: string; score: number }[] {
  if (m.dim === 0 || query.length !== m.dim || k <= 0) return [];
  const n = m.paths.length;
  const q = Float32Array.from(query);
  // Keep the best k in a small sorted buffer (k ≪ n): no sort of all n scores.
  const bestIdx: number[] = [];
  const bestScore: number[] = [];
  for (let i = 0; i < n; i += 1) {
    let s = 0;
    const off = i * m.dim;
    for (let j = 0; j < m.dim; j += 1) s += m.data[off + j]! * q[j]!;
    if (bestIdx.length === k && s <= bestScore[k - 1]!) continue;
    let pos = bestIdx.length;
    while (pos > 0 && bestScore[pos - 1]! < s) pos -= 1;
    bestIdx.splice(pos, 0, i);
    bestScore.splice(pos, 0, s);
    if (bestIdx.length > k) {
      bestIdx.pop();
      bestScore.pop();
    }
  }
  return bestIdx.map((i, r) => ({ path: m.paths[i]!, score: bestScore[r]! }));
}
