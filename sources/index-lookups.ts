/**
 * Read queries over the index: full-text search, notes by date window, path, key or mentioned
 * entity, retired and superseded notes, and counts.
 */
import type { Note, NoteLocation } from '../core/note.js';
import { indexGeneration, NOTE_COLS, rowToNote, type NoteRow } from './index-schema.js';
import type { SqlDatabase } from './sqlite.js';
import type { IndexHandle } from './index-store.js';

export interface ScoredRow {
  note: Note;
  score: number;
}

/** Note counts per connection, with the index generation they were read at. */
const noteCounts = new WeakMap<SqlDatabase, { generation: number; counts: { live: number; archived: number; forgotten: number } }>();

/** BM25 column weights: title, tags, key insight, structured fields, body. */
export const BM25_WEIGHTS = [4, 2, 2, 1.5, 1] as const;

/**
 * FTS5 BM25 search over live notes (only documents/ notes are in the FTS index). `match` is an FTS5
 * query string. Scores are returned positive (higher is better).
 */
export function searchFts(h: IndexHandle, match: string, limit: number): ScoredRow[] {
  const top = h.db
    .prepare(
      `SELECT rowid AS id, bm25(notes_fts, ${BM25_WEIGHTS.join(', ')}) AS s FROM notes_fts WHERE notes_fts MATCH ? ORDER BY s LIMIT ?`,
    )
    .all(match, limit) as { id: number; s: number }[];
  if (top.length === 0) return [];
  const rows = h.db
    .prepare(`SELECT n.rowid AS id, ${NOTE_COLS} FROM notes n WHERE n.rowid IN (${top.map(() => '?').join(',')})`)
    .all(...top.map((t) => t.id)) as (NoteRow & { id: number })[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return top.flatMap((t) => {
    const r = byId.get(t.id);
    return r ? [{ note: rowToNote(r), score: -t.s }] : [];
  });
}

/** Live notes dated inside [startMs, endMs], at most `cap`, oldest path order (deterministic). */
export function notesInWindow(h: IndexHandle, startMs: number, endMs: number, cap: number): Note[] {
  const rows = h.db
    .prepare(
      `SELECT ${NOTE_COLS} FROM notes n
       WHERE n.location = 'documents' AND n.date_ms BETWEEN ? AND ? ORDER BY n.path LIMIT ?`,
    )
    .all(startMs, endMs, cap) as NoteRow[];
  return rows.map(rowToNote);
}

/** Notes stored at the given paths (any location), keyed by path. */
export function notesByPaths(h: IndexHandle, paths: string[]): Map<string, Note> {
  const out = new Map<string, Note>();
  if (paths.length === 0) return out;
  const rows = h.db
    .prepare(`SELECT n.path AS path, ${NOTE_COLS} FROM notes n WHERE n.path IN (${paths.map(() => '?').join(',')})`)
    .all(...paths) as (NoteRow & { path: string })[];
  for (const r of rows) out.set(r.path, rowToNote(r));
  return out;
}

/** Notes by key (first by path order when a key repeats), keyed by key. */
export function notesByKeys(h: IndexHandle, keys: string[]): Map<string, Note> {
  const out = new Map<string, Note>();
  if (keys.length === 0) return out;
  const rows = h.db
    .prepare(`SELECT ${NOTE_COLS} FROM notes n WHERE n.key IN (${keys.map(() => '?').join(',')}) ORDER BY n.path`)
    .all(...keys) as NoteRow[];
  for (const r of rows) {
    const note = rowToNote(r);
    if (!out.has(note.key)) out.set(note.key, note);
  }
  return out;
}

/** Live notes that mention each entity (normalised names), in the order the names were given. */
export function notesMentioning(h: IndexHandle, norms: string[]): Map<string, Note[]> {
  const out = new Map<string, Note[]>();
  if (norms.length === 0) return out;
  const rows = h.db
    .prepare(
      `SELECT e.norm AS norm, m.note_path AS path FROM mentions m JOIN entities e ON e.id = m.entity_id
       WHERE e.norm IN (${norms.map(() => '?').join(',')})`,
    )
    .all(...norms) as { norm: string; path: string }[];
  const notes = notesByPaths(h, [...new Set(rows.map((r) => r.path))]);
  for (const n of norms) {
    const list = rows
      .filter((r) => r.norm === n)
      .map((r) => notes.get(r.path))
      .filter((x): x is Note => x !== undefined && x.location === 'documents');
    if (list.length) out.set(n, list);
  }
  return out;
}

export interface RetiredMatch {
  key: string;
  contentHash: string;
  declaredHash: string | null;
  location: NoteLocation;
  path: string;
}

/**
 * Retired notes (in archived/ or documents/.forgotten/) whose key or content hash equals one of the
 * given values. Cost grows with the number of values asked about, not with the retired backlog.
 */
export function findRetired(h: IndexHandle, keys: string[], hashes: string[]): RetiredMatch[] {
  if (keys.length === 0 && hashes.length === 0) return [];
  const k = keys.length ? keys : [''];
  const hs = hashes.length ? hashes : [''];
  const ph = (n: number): string => Array.from({ length: n }, () => '?').join(',');
  const rows = h.db
    .prepare(
      `SELECT key, content_hash, declared_hash, location, path FROM notes
       WHERE location != 'documents' AND (key IN (${ph(k.length)}) OR content_hash IN (${ph(hs.length)}) OR declared_hash IN (${ph(hs.length)}))`,
    )
    .all(...k, ...hs, ...hs) as { key: string; content_hash: string; declared_hash: string | null; location: NoteLocation; path: string }[];
  return rows.map((r) => ({ key: r.key, contentHash: r.content_hash, declaredHash: r.declared_hash, location: r.location, path: r.path }));
}

/** For each given key that a live note declares it supersedes, the superseding note's key. */
export function findSupersededBy(h: IndexHandle, keys: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (keys.length === 0) return out;
  const rows = h.db.prepare(`SELECT target, by_key FROM supersedes WHERE target IN (${keys.map(() => '?').join(',')})`).all(...keys) as {
    target: string;
    by_key: string;
  }[];
  for (const r of rows) if (r.target !== r.by_key && !out.has(r.target)) out.set(r.target, r.by_key);
  return out;
}

export function countNotes(h: IndexHandle): { live: number; archived: number; forgotten: number } {
  // Counting 100k rows takes ~7 ms and every recall asks (the session, the relevance estimate, the
  // graph arm); the counts change only with the generation, which every committed change bumps.
  const generation = indexGeneration(h);
  const cached = noteCounts.get(h.db);
  if (cached?.generation === generation) return { ...cached.counts };
  const rows = h.db.prepare(`SELECT location, COUNT(*) AS c FROM notes GROUP BY location`).all() as {
    location: NoteLocation;
    c: number;
  }[];
  const out = { live: 0, archived: 0, forgotten: 0 };
  for (const r of rows) out[r.location === 'documents' ? 'live' : r.location] = r.c;
  noteCounts.set(h.db, { generation, counts: { ...out } });
  return out;
}
