/**
 * Read-only questions the commands and tools ask of a KB's index (stages, explain, team push). The
 * SQL lives here, next to the schema it reads, so nothing above the sources layer touches the index
 * database directly.
 */
import { type Note, declaredIdOf, declaredKeyPrefix, hashedId, isHashedId, readableId } from '../../core/note/index.js';
import type { IndexHandle } from './handle.js';
import { rowToNote, type NoteRow } from './schema.js';
import { TEAM_PREFIX } from '../team/index.js';

/**
 * The KB's own notes: the index also holds the pulled team notes (under their own path prefix),
 * which the note commands (show, list, supersede, forget) neither show nor change.
 */
const OWN = `path NOT LIKE '${TEAM_PREFIX}/%'`;

/** Live notes (documents/) in index order; `withText` false leaves body and chunk empty (metadata only). */
export function liveNotes(h: IndexHandle, withText: boolean): Note[] {
  const cols = withText ? 'body, chunk' : `'' AS body, '' AS chunk`;
  const rows = h.db.prepare(`SELECT data, ${cols} FROM notes WHERE location = 'documents' ORDER BY rowid`).all() as NoteRow[];
  return rows.map(rowToNote);
}

/** The stored entity sidecar of a note (the first by path when several), as its raw JSON text, or null. */
export function sidecarText(h: IndexHandle, notePath: string): string | null {
  const row = h.db.prepare(`SELECT data FROM sidecars WHERE note_path = ? ORDER BY path LIMIT 1`).get(notePath) as
    { data: string } | undefined;
  return row?.data ?? null;
}

/** `s` with SQL LIKE's wildcards escaped (the queries say ESCAPE '\'). */
const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The note whose file is `<stem>.md` (at the KB root or in any folder), or undefined. */
export function noteByFileStem(h: IndexHandle, stem: string): { key: string; location: string; path: string } | undefined {
  return h.db
    .prepare(`SELECT key, location, path FROM notes WHERE path LIKE ? ESCAPE '\\' OR path = ? LIMIT 1`)
    .get(`%/${likeEscape(stem)}.md`, `${stem}.md`) as { key: string; location: string; path: string } | undefined;
}

/** A file whose path contains `fragment` and that could not be indexed, with the reason, or undefined. */
export function problemFileLike(h: IndexHandle, fragment: string): { path: string; problem: string } | undefined {
  return h.db
    .prepare(`SELECT path, problem FROM files WHERE path LIKE ? ESCAPE '\\' AND problem IS NOT NULL LIMIT 1`)
    .get(`%${likeEscape(fragment)}%`) as { path: string; problem: string } | undefined;
}

/**
 * The stored notes whose path is not under `excludedPrefix` (an attached folder), in pages by rowid
 * so a large KB never sits in memory as rows and parsed notes at once.
 */
export function* notesOutside(h: IndexHandle, excludedPrefix: string, pageSize = 2000): Generator<Note> {
  const page = h.db.prepare(`SELECT rowid AS id, data FROM notes WHERE path NOT LIKE ? AND rowid > ? ORDER BY rowid LIMIT ?`);
  for (let after = 0; ;) {
    const got = page.all(`${excludedPrefix}/%`, after, pageSize) as { id: number; data: string }[];
    if (got.length === 0) return;
    after = got[got.length - 1]!.id;
    for (const r of got) yield JSON.parse(r.data) as Note;
  }
}

/** Modification times (ms) of the indexed files whose path is not under `excludedPrefix`. */
export function fileMtimesOutside(h: IndexHandle, excludedPrefix: string): Map<string, number> {
  const rows = h.db.prepare(`SELECT path, mtime_ms FROM files WHERE path NOT LIKE ?`).all(`${excludedPrefix}/%`) as {
    path: string;
    mtime_ms: number;
  }[];
  return new Map(rows.map((r) => [r.path, r.mtime_ms]));
}

/** Supersede links (target key → superseding key) declared by notes not under `excludedPrefix`, in index order. */
export function supersedeLinksOutside(h: IndexHandle, excludedPrefix: string): { target: string; byKey: string }[] {
  const rows = h.db.prepare(`SELECT target, by_key FROM supersedes WHERE by_path NOT LIKE ?`).all(`${excludedPrefix}/%`) as {
    target: string;
    by_key: string;
  }[];
  return rows.map((r) => ({ target: r.target, byKey: r.by_key }));
}

/**
 * Every note of the KB's own, of any location, named by `id`: by key first; else by file name
 * (`<id>.md` at the root or in any folder). Live notes come before retired copies, then by path.
 */
export function notesNamed(h: IndexHandle, id: string): Note[] {
  const byKey = h.db
    .prepare(`SELECT data, body, chunk FROM notes WHERE key = ? AND ${OWN} ORDER BY location = 'documents' DESC, path`)
    .all(id) as NoteRow[];
  if (byKey.length) return byKey.map(rowToNote);
  const rows = h.db
    .prepare(
      `SELECT data, body, chunk FROM notes WHERE (path = ? OR path LIKE ? ESCAPE '\\') AND ${OWN} ORDER BY location = 'documents' DESC, path`,
    )
    .all(`${id}.md`, `%/${likeEscape(id)}.md`) as NoteRow[];
  if (rows.length) return rows.map(rowToNote);
  // The id as declared (`recall show "Pool size per worker"`) names the notes that declared it.
  const declaring = notesDeclaring(h, id);
  if (declaring.length) return declaring;
  // A path that could not be shown as typed (`infra/Kafka Lag`) names the note its readable form keys.
  const readable = readableId(id);
  if (readable !== id) return notesNamed(h, readable);
  const key = keyOfHashedId(h, id);
  return key ? notesNamed(h, key) : [];
}

/**
 * The KB's own notes whose declared id (or memory `name`) is exactly `declared` though their key is
 * not (it had to be made readable: core/note/gist.ts declaredKey), live ones first, then by path.
 */
export function notesDeclaring(h: IndexHandle, declared: string): Note[] {
  const rows = h.db
    .prepare(`SELECT data, body, chunk FROM notes WHERE key LIKE ? ESCAPE '\\' AND ${OWN} ORDER BY location = 'documents' DESC, path`)
    .all(`${likeEscape(declaredKeyPrefix(declared))}%`) as NoteRow[];
  return rows.map(rowToNote).filter((n) => n.key !== declared && declaredIdOf(n) === declared);
}

/** The key a hashed id (`id-<10 hex>`, how injected text shows an id it cannot print) stands for, or null. */
export function keyOfHashedId(h: IndexHandle, id: string): string | null {
  if (!isHashedId(id)) return null;
  const keys = h.db.prepare(`SELECT DISTINCT key FROM notes WHERE ${OWN}`).all() as { key: string }[];
  return keys.find((k) => hashedId(k.key) === id)?.key ?? null;
}

/** Metadata (no text) of the KB's own notes, newest first by date (undated last), then by path. */
export function notesByDate(h: IndexHandle): Note[] {
  const rows = h.db
    .prepare(`SELECT data, '' AS body, '' AS chunk FROM notes WHERE ${OWN} ORDER BY date_ms IS NULL, date_ms DESC, path`)
    .all() as NoteRow[];
  return rows.map(rowToNote);
}

/**
 * The supersessions the KB's own notes declare, as pairs of keys: the older note (named by key, or by
 * the `name:` of a memory a newer memory says it replaces) and the note that declares it.
 */
export function supersedingPairs(h: IndexHandle): { older: string; newer: string }[] {
  return h.db
    .prepare(
      `SELECT DISTINCT n.key AS older, s.by_key AS newer FROM supersedes s
       JOIN notes n ON n.key = s.target OR json_extract(n.data, '$.frontmatter.name') = s.target
       WHERE s.by_path NOT LIKE '${TEAM_PREFIX}/%' AND n.${OWN} AND n.key != s.by_key`,
    )
    .all() as { older: string; newer: string }[];
}

/**
 * Keys some note of the KB's own declares it supersedes: by key, or by the `name:` of a memory a
 * newer memory says it replaces (core/note/memory.ts).
 */
export function supersededKeys(h: IndexHandle): Set<string> {
  const rows = h.db
    .prepare(
      `SELECT target FROM supersedes WHERE by_path NOT LIKE '${TEAM_PREFIX}/%'
       UNION SELECT n.key FROM notes n JOIN supersedes s ON s.target = json_extract(n.data, '$.frontmatter.name')
       WHERE s.by_path NOT LIKE '${TEAM_PREFIX}/%' AND n.key != s.by_key`,
    )
    .all() as { target: string }[];
  return new Set(rows.map((r) => r.target));
}
