/**
 * Read queries over the index: full-text search, notes by date window, path, key or mentioned
 * entity, retired and superseded notes, and counts.
 */
import type { Note, NoteLocation } from '../../core/note/index.js';
import { indexGeneration, NOTE_COLS, rowToNote, type NoteRow } from './schema.js';
import type { SqlDatabase } from '../sqlite/index.js';
import type { IndexHandle } from './handle.js';

export interface ScoredRow {
  note: Note;
  score: number;
  /** The part of `score` lent by the note's episode (episode context); absent when none. */
  context?: number;
}

/** Note counts per connection, with the index generation they were read at. */
const noteCounts = new WeakMap<SqlDatabase, { generation: number; counts: { live: number; archived: number; forgotten: number } }>();

/** BM25 column weights: title, tags, key insight, structured fields, body. */
export const BM25_WEIGHTS = [4, 2, 2, 1.5, 1] as const;

/** How a full-text search ranks its matches beyond their own BM25 score. */
export interface FtsOptions {
  /**
   * Weight of a match's episode, the notes archived at the same moment (see episodeRanked): its
   * score becomes (own BM25 + weight × the best BM25 among its episode's matches) / (1 + weight).
   * 0 or absent = own score only.
   */
  episodeWeight?: number;
}

/** Matches looked at for episode context: an episode is judged by its best match among these. */
export const EPISODE_POOL = 200;
/**
 * Notes sharing an archived moment beyond this many are a bulk import, not one session's notes:
 * they lend no context to each other.
 */
export const MAX_EPISODE_NOTES = 100;

/**
 * FTS5 BM25 search over live notes (only documents/ notes are in the FTS index). `match` is an FTS5
 * query string. Scores are returned positive (higher is better).
 */
export function searchFts(h: IndexHandle, match: string, limit: number, opts: FtsOptions = {}): ScoredRow[] {
  const weight = opts.episodeWeight ?? 0;
  const top: { id: number; s: number; own?: number }[] = weight > 0 ? episodeRanked(h, match, limit, weight) : ownRanked(h, match, limit);
  if (top.length === 0) return [];
  const rows = h.db
    .prepare(`SELECT n.rowid AS id, ${NOTE_COLS} FROM notes n WHERE n.rowid IN (${top.map(() => '?').join(',')})`)
    .all(...top.map((t) => t.id)) as (NoteRow & { id: number })[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return top.flatMap((t): ScoredRow[] => {
    const r = byId.get(t.id);
    if (!r) return [];
    const lent = t.own === undefined ? 0 : t.s - t.own;
    return [lent > 1e-9 ? { note: rowToNote(r), score: t.s, context: lent } : { note: rowToNote(r), score: t.s }];
  });
}

const BM25_EXPR = `-bm25(notes_fts, ${BM25_WEIGHTS.join(', ')})`;

function ownRanked(h: IndexHandle, match: string, limit: number): { id: number; s: number }[] {
  return h.db
    .prepare(`SELECT rowid AS id, ${BM25_EXPR} AS s FROM notes_fts WHERE notes_fts MATCH ? ORDER BY s DESC LIMIT ?`)
    .all(match, limit) as { id: number; s: number }[];
}

/**
 * The best EPISODE_POOL matches, each scored (own + weight × its episode's best match) / (1 + weight),
 * best first. Notes written down from one conversation or session (the same `<!-- archived -->`
 * moment) answer a question together, so a turn that only half matches ("Definitely Star Wars!")
 * ranks higher when the session it belongs to matches the question well. A note with no episode,
 * or the best of its episode, keeps its own score: on a KB without shared moments nothing changes.
 *
 * The statement is exported so a spec can check its query plan, which is what keeps it cheap: the
 * pool is MATERIALIZED (inlined, SQLite walks every note that has an episode: 12 ms at 200k notes,
 * instead of the 200 matches), and an episode's live notes are counted on the covering index
 * notes(episode, location), only up to MAX_EPISODE_NOTES + 1 (a plan that counted through another
 * index scanned every note per episode: 11 s at 20k notes).
 */
export const EPISODE_RANKED_SQL = `WITH m AS (SELECT rowid AS id, ${BM25_EXPR} AS s FROM notes_fts WHERE notes_fts MATCH ? ORDER BY s DESC LIMIT ?),
       me AS MATERIALIZED (SELECT m.id, m.s, n.episode AS ep FROM m JOIN notes n ON n.rowid = m.id),
       eb AS (SELECT ep, max(s) AS best FROM me WHERE ep IS NOT NULL GROUP BY ep
              HAVING (SELECT count(*) FROM (SELECT 1 FROM notes x WHERE x.episode = me.ep AND x.location = 'documents' LIMIT ?)) <= ?)
       SELECT me.id, me.s AS own, (me.s + ? * coalesce(eb.best, me.s)) / ? AS s
       FROM me LEFT JOIN eb ON eb.ep = me.ep ORDER BY s DESC LIMIT ?`;

function episodeRanked(h: IndexHandle, match: string, limit: number, weight: number): { id: number; s: number; own: number }[] {
  return h.db
    .prepare(EPISODE_RANKED_SQL)
    .all(match, Math.max(EPISODE_POOL, limit), MAX_EPISODE_NOTES + 1, MAX_EPISODE_NOTES, weight, 1 + weight, limit) as {
    id: number;
    s: number;
    own: number;
  }[];
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

/**
 * The live notes among `n` keys whose declared `name:` another note supersedes. The unary `+` keeps
 * SQLite off the (location, date) index, which made it read and JSON-parse every live note (12 ms
 * per recall on 10k notes) instead of looking the few keys up on notes_key.
 */
export const supersededByNameSql = (n: number): string =>
  `SELECT n.key AS target, s.by_key AS by_key FROM notes n
   JOIN supersedes s ON s.target = json_extract(n.data, '$.frontmatter.name')
   WHERE +n.location = 'documents' AND n.key IN (${Array.from({ length: n }, () => '?').join(',')})`;

/** For each given key that a live note declares it supersedes, the superseding note's key. */
export function findSupersededBy(h: IndexHandle, keys: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (keys.length === 0) return out;
  const rows = h.db.prepare(`SELECT target, by_key FROM supersedes WHERE target IN (${keys.map(() => '?').join(',')})`).all(...keys) as {
    target: string;
    by_key: string;
  }[];
  for (const r of rows) if (r.target !== r.by_key && !out.has(r.target)) out.set(r.target, r.by_key);
  // A memory names the one it replaces by its `name:` ([[CI runs on Jenkins]]), which is not its key
  // when the name is free text (the key then carries a hash): match declared names too.
  const byName = h.db.prepare(supersededByNameSql(keys.length)).all(...keys) as { target: string; by_key: string }[];
  for (const r of byName) if (r.target !== r.by_key && !out.has(r.target)) out.set(r.target, r.by_key);
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
