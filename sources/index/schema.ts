/**
 * The index file's layout: where the file lives, its tables and triggers, how a parsed note is
 * stored in a row and read back, and the few values kept in its `meta` table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { fileTag, type SqlDatabase } from '../sqlite/index.js';
import { parseLooseDate } from '../../core/dates.js';
import { extraFieldsText, type Note } from '../../core/note/index.js';
import type { WalkProblem } from '../kb/index.js';
import { GRAPH_DDL, GRAPH_TABLES } from './entity-graph.js';
import { VECTOR_DDL } from '../models/index.js';
import type { IndexHandle } from './handle.js';

/** Bump when the table layout or the parsed Note shape changes: older index files are rebuilt. */
const SCHEMA_VERSION = '23';
/** How long a write waits for another writer before giving up (SQLite busy timeout). */
export const BUSY_TIMEOUT_MS = 1000;

const DDL = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, kind TEXT NOT NULL, mtime_ms REAL NOT NULL, size INTEGER NOT NULL,
  content_hash TEXT, problem TEXT, warning TEXT);
CREATE TABLE IF NOT EXISTS notes (
  rowid INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, key TEXT NOT NULL, location TEXT NOT NULL,
  date_ms INTEGER, content_hash TEXT NOT NULL, declared_hash TEXT,
  title TEXT NOT NULL, tags TEXT NOT NULL, insight TEXT NOT NULL, extra TEXT NOT NULL, body TEXT NOT NULL,
  chunk TEXT NOT NULL, data TEXT NOT NULL, episode TEXT);
CREATE INDEX IF NOT EXISTS notes_key ON notes(key);
CREATE INDEX IF NOT EXISTS notes_episode ON notes(episode, location);
CREATE INDEX IF NOT EXISTS notes_hash ON notes(content_hash);
CREATE INDEX IF NOT EXISTS notes_declared ON notes(declared_hash);
CREATE INDEX IF NOT EXISTS notes_date ON notes(location, date_ms);
CREATE TABLE IF NOT EXISTS sidecars (
  path TEXT PRIMARY KEY, note_path TEXT NOT NULL, document_id TEXT, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sidecars_note ON sidecars(note_path);
CREATE TABLE IF NOT EXISTS supersedes (target TEXT NOT NULL, by_path TEXT NOT NULL, by_key TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS supersedes_target ON supersedes(target);
CREATE INDEX IF NOT EXISTS supersedes_by ON supersedes(by_path);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(
  title, tags, insight, extra, body, content='notes', content_rowid='rowid', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS notes_ai AFTER INSERT ON notes WHEN new.location = 'documents' BEGIN
  INSERT INTO notes_fts(rowid, title, tags, insight, extra, body) VALUES (new.rowid, new.title, new.tags, new.insight, new.extra, new.body);
END;
CREATE TRIGGER IF NOT EXISTS notes_ad AFTER DELETE ON notes WHEN old.location = 'documents' BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, title, tags, insight, extra, body) VALUES ('delete', old.rowid, old.title, old.tags, old.insight, old.extra, old.body);
END;
CREATE TRIGGER IF NOT EXISTS notes_au AFTER UPDATE ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, title, tags, insight, extra, body)
    SELECT 'delete', old.rowid, old.title, old.tags, old.insight, old.extra, old.body WHERE old.location = 'documents';
  INSERT INTO notes_fts(rowid, title, tags, insight, extra, body)
    SELECT new.rowid, new.title, new.tags, new.insight, new.extra, new.body WHERE new.location = 'documents';
END;
`;

/**
 * Index file for a KB root: `<stateDir>/index/<basename>-<sha1(realpath)[:12]>.sqlite` (`.wasm.sqlite`
 * under the WebAssembly SQLite driver, which must not share a file with native SQLite).
 */
export function indexFileFor(kbRoot: string, stateDir: string): string {
  let real = path.resolve(kbRoot);
  try {
    real = fs.realpathSync(kbRoot);
  } catch {
    /* a missing root still gets a stable name */
  }
  const slug =
    path
      .basename(real)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .slice(0, 40) || 'kb';
  const digest = createHash('sha1').update(real).digest('hex').slice(0, 12);
  return path.join(stateDir, 'index', `${slug}-${digest}${fileTag()}.sqlite`);
}

/** Whether the index already has this schema version (then nothing is written but a missing instance id). */
function schemaCurrent(db: SqlDatabase): boolean {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'`).get();
  if (!hasMeta) return false;
  const row = db.prepare(`SELECT v FROM meta WHERE k='schema'`).get() as { v: string } | undefined;
  return row?.v === SCHEMA_VERSION;
}

export function prepareSchema(db: SqlDatabase): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!schemaCurrent(db)) {
    // Checked again and made under the write lock, as one transaction: two processes opening a new
    // index at once would otherwise interleave, and the second, seeing the first's meta table
    // without its version row yet, dropped the tables the first was filling ("no such table:
    // sidecars" in 1 of 9 concurrent `recall supersede` runs on a loaded machine).
    db.exec('BEGIN IMMEDIATE');
    try {
      if (!schemaCurrent(db)) createSchema(db);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }
  // Indexes made before the instance id existed get one (a write only that once).
  if (!getMeta(db, 'instance')) db.prepare(`INSERT OR IGNORE INTO meta(k, v) VALUES ('instance', ?)`).run(randomUUID());
}

/** Drop whatever an older schema left, and create this one (inside prepareSchema's transaction). */
function createSchema(db: SqlDatabase): void {
  const tables = ['notes_fts', 'notes', 'files', 'sidecars', 'supersedes', 'vectors', ...GRAPH_TABLES, 'meta'];
  db.exec(tables.map((t) => `DROP TABLE IF EXISTS ${t};`).join('\n'));
  db.exec(DDL);
  db.exec(GRAPH_DDL);
  db.exec(VECTOR_DDL);
  db.prepare(`INSERT OR REPLACE INTO meta(k, v) VALUES ('schema', ?), ('generation', '0'), ('fingerprint', ''), ('instance', ?)`).run(
    SCHEMA_VERSION,
    randomUUID(),
  );
}

/**
 * A random id given to an index file when it is made: tells a rebuilt file at the same path (a
 * fresh index starts again at generation 1) from the one a connection has open.
 */
export function indexInstance(h: IndexHandle): string {
  return getMeta(h.db, 'instance');
}

/** Longest archived header read as a moment (an ISO timestamp with zone and fraction is 32). */
const MAX_MOMENT_CHARS = 40;

/**
 * The episode a note belongs to: its `<!-- archived -->` moment, when that names a valid time of
 * day, as a key that spells one moment one way ("…T10:00:00Z" and "…T10:00:00.000+00:00" are the same
 * episode; a time without a zone is taken as written, whatever the machine's zone). A date alone, or
 * midnight (what a date becomes when a tool turns it into a time), says which day a note was filed,
 * not which session it came from: such notes, and headers that are not a valid date, form no episode.
 */
export function episodeOf(archivedAt: string | null): string | null {
  if (archivedAt === null || archivedAt.length > MAX_MOMENT_CHARS) return null;
  const time = /T(\d\d)(?::?(\d\d))?(?::?(\d\d))?/.exec(archivedAt);
  if (!time) return null;
  const [, h, m = '00', s = '00'] = time;
  if (h === '00' && m === '00' && s === '00') return null;
  const d = parseLooseDate(archivedAt);
  if (!d) return null;
  if (/(?:Z|[+-]\d\d:?\d\d)$/i.test(archivedAt)) return `utc:${d.getTime()}`;
  const asWritten = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds());
  return `local:${asWritten}`;
}

/** Metadata stored as JSON: the Note without its two large text fields. */
type StoredMeta = Omit<Note, 'body' | 'chunkText'>;

export function noteRow(note: Note): Record<string, unknown> {
  const { body, chunkText, ...meta } = note;
  return {
    path: note.path,
    key: note.key,
    location: note.location,
    date_ms: note.dateMs,
    content_hash: note.contentHash,
    declared_hash: note.declaredHash,
    title: note.title,
    tags: note.tags.join(' '),
    insight: note.keyInsight,
    extra: extraFieldsText(note),
    body,
    chunk: chunkText,
    data: JSON.stringify(meta satisfies StoredMeta),
    episode: episodeOf(note.archivedAt),
  };
}

/** Row shape returned by the query helpers below. */
export interface NoteRow {
  data: string;
  body: string;
  chunk: string;
}

export function rowToNote(row: NoteRow): Note {
  const meta = JSON.parse(row.data) as StoredMeta;
  return { ...meta, body: row.body, chunkText: row.chunk };
}

export function getMeta(db: SqlDatabase, k: string): string {
  const row = db.prepare(`SELECT v FROM meta WHERE k = ?`).get(k) as { v: string } | undefined;
  return row?.v ?? '';
}

export function indexGeneration(h: IndexHandle): number {
  return Number(getMeta(h.db, 'generation')) || 0;
}

/** Problems recorded for files in the index (persist across refreshes until the file changes). */
export function indexProblems(h: IndexHandle): WalkProblem[] {
  const rows = h.db.prepare(`SELECT path, problem FROM files WHERE problem IS NOT NULL ORDER BY path`).all() as {
    path: string;
    problem: string;
  }[];
  const walk = getMeta(h.db, 'walk_problems');
  const walkProblems = walk ? (JSON.parse(walk) as WalkProblem[]) : [];
  return [...walkProblems, ...rows.map((r) => ({ rel: r.path, message: r.problem }))];
}

/**
 * Notes indexed all the same with a warning (a file whose key another note held, indexed under a
 * key of its own: key-claims.ts), one line each, by path; kept until the file is read again.
 */
export function indexWarnings(h: IndexHandle): WalkProblem[] {
  const rows = h.db.prepare(`SELECT path, warning FROM files WHERE warning IS NOT NULL ORDER BY path`).all() as {
    path: string;
    warning: string;
  }[];
  return rows.map((r) => ({ rel: r.path, message: r.warning }));
}

/** The columns `rowToNote` reads, from a query that names the notes table `n`. */
export const NOTE_COLS = `n.data AS data, n.body AS body, n.chunk AS chunk`;
