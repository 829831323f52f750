/**
 * Note vectors stored in the index, one per note and embedding model, valid while the note's
 * content hash is unchanged.
 */
import { modelText } from '../../core/note/index.js';
import { decodeVector, encodeVector } from '../models/index.js';
import { NOTE_COLS, rowToNote, type NoteRow } from './schema.js';
import type { IndexHandle } from './handle.js';

export interface VectorCounts {
  /** Live notes with a current vector from `model`. */
  current: number;
  /** Live notes. */
  live: number;
  /** Vectors made by another model. */
  otherModel: number;
  /** Name of another model that made vectors here, if any. */
  otherModelName: string | null;
}

export function vectorCounts(h: IndexHandle, model: string): VectorCounts {
  const current = (
    h.db
      .prepare(
        `SELECT COUNT(*) AS c FROM vectors v JOIN notes n ON n.path = v.path
       WHERE n.location = 'documents' AND v.model = ? AND v.content_hash = n.content_hash`,
      )
      .get(model) as { c: number }
  ).c;
  const live = (h.db.prepare(`SELECT COUNT(*) AS c FROM notes WHERE location = 'documents'`).get() as { c: number }).c;
  const other = h.db.prepare(`SELECT model, COUNT(*) AS c FROM vectors WHERE model != ? GROUP BY model ORDER BY c DESC`).all(model) as {
    model: string;
    c: number;
  }[];
  return { current, live, otherModel: other.reduce((n, r) => n + r.c, 0), otherModelName: other[0]?.model ?? null };
}

/** How many live notes lack a current vector from `model`. */
export function countMissingVectors(h: IndexHandle, model: string): number {
  return (
    h.db
      .prepare(
        `SELECT COUNT(*) AS c FROM notes n LEFT JOIN vectors v ON v.path = n.path AND v.model = ? AND v.content_hash = n.content_hash
       WHERE n.location = 'documents' AND v.path IS NULL`,
      )
      .get(model) as { c: number }
  ).c;
}

/** Live notes without a current vector from `model` (oldest path first), at most `limit`. */
export function notesMissingVectors(h: IndexHandle, model: string, limit: number): { path: string; contentHash: string; text: string }[] {
  const rows = h.db
    .prepare(
      `SELECT n.path AS path, n.content_hash AS contentHash, ${NOTE_COLS} FROM notes n
       LEFT JOIN vectors v ON v.path = n.path AND v.model = ? AND v.content_hash = n.content_hash
       WHERE n.location = 'documents' AND v.path IS NULL ORDER BY n.path LIMIT ?`,
    )
    .all(model, limit) as (NoteRow & { path: string; contentHash: string })[];
  return rows.map((r) => ({ path: r.path, contentHash: r.contentHash, text: modelText(rowToNote(r)) }));
}

export function saveVectors(h: IndexHandle, model: string, rows: { path: string; contentHash: string; vector: number[] }[]): number {
  const put = h.db.prepare(`INSERT OR REPLACE INTO vectors(path, model, dim, content_hash, vec) VALUES (?, ?, ?, ?, ?)`);
  const tx = h.db.transaction(() => {
    for (const r of rows) put.run(r.path, model, r.vector.length, r.contentHash, encodeVector(r.vector));
    // Vectors count as index content: cached fetches that used older vectors are now stale.
    h.db.prepare(`UPDATE meta SET v = CAST(v AS INTEGER) + 1 WHERE k = 'generation'`).run();
  });
  tx.immediate();
  return rows.length;
}

/** Current stored vectors of `model` for the given note paths. */
export function storedVectors(h: IndexHandle, model: string, paths: string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (paths.length === 0) return out;
  const rows = h.db
    .prepare(
      `SELECT v.path AS path, v.vec AS vec FROM vectors v JOIN notes n ON n.path = v.path
       WHERE v.model = ? AND v.content_hash = n.content_hash AND v.path IN (${paths.map(() => '?').join(',')})`,
    )
    .all(model, ...paths) as { path: string; vec: Uint8Array }[];
  for (const r of rows) out.set(r.path, Array.from(decodeVector(r.vec)));
  return out;
}
