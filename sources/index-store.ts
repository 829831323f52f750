/**
 * The embedded persistent index: one SQLite file per KB root under `<state dir>/index/`, never
 * inside the KB (which may be read-only).
 *
 * - `notes` holds each parsed note (metadata as JSON plus its text), `notes_fts` an FTS5 index over
 *   title, tags, key insight, structured fields and body of the live notes only (external content,
 *   kept in sync by triggers; archived and forgotten notes are looked up by key and hash, never searched).
 * - `files` remembers every file's mtime and size so a refresh re-reads only what changed; a
 *   fingerprint of the whole listing lets an unchanged KB skip even that comparison.
 * - `generation` increases on every committed batch that changed something; the recall cache keys on it.
 *
 * A refresh commits in small batches and can stop at a deadline: what it committed survives a
 * kill, and the next refresh (or a background refresher, see index-refresh.ts) carries on from there.
 * Readers (WAL mode) always see the last committed state, never wait for a writer.
 *
 * Failures are told apart: a full disk or a busy writer leave the index as it is (recall reads the
 * last committed state); only a file SQLite reports as corrupt is set aside (one copy kept) and
 * rebuilt. When the state dir cannot be written the index lives in memory for this process (and says so).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileTag, openDatabase, sqliteDriver, sqliteErrorCode, type SqlDatabase, type SqlStatement } from './sqlite.js';
import { extraFieldsText, isMemoryIndex, modelText, parseNote, str, type FleetLookup, type Note, type NoteLocation } from '../core/note.js';
import { loadFleetLedger } from './fleet-ledger.js';
import { mkdirPrivate } from '../core/private-fs.js';
import { parseYamlMapping } from '../core/frontmatter.js';
import type { KbFile, WalkProblem } from './kb-walk.js';
import { decoratorFor, walkWithAttached, type AttachedRoot } from './attached-roots.js';
import { GRAPH_DDL, GRAPH_TABLES, GraphWriter, graphFromMapping } from './entity-graph.js';
import { VECTOR_DDL, decodeVector, encodeVector } from './models/vector-store.js';

/** Bump when the table layout or the parsed Note shape changes: older index files are rebuilt. */
const SCHEMA_VERSION = '13';
/** Larger notes are skipped as "too large" (a learning is a few KB; 1 MiB is generous). */
export const MAX_NOTE_BYTES = 1024 * 1024;
/** Bytes inspected for a NUL byte to classify a file as binary. */
const BINARY_SNIFF_BYTES = 8192;

export interface IndexHandle {
  db: SqlDatabase;
  kbRoot: string;
  /** Index file path, or ':memory:'. */
  file: string;
  /** Why the index is in memory, or was rebuilt, when it is. */
  fallbackReason: string | null;
  /** Follow symlinks that leave the KB root (RECALL_FOLLOW_OUTSIDE_LINKS=1). */
  followOutside?: boolean;
  /** Local fleet-import ledger consulted for the provenance of notes as they are indexed. */
  fleetLedger?: string;
  /** Folders indexed with the KB under their own path prefix (the pulled team shard). */
  attached: readonly AttachedRoot[];
}

export interface RefreshReport {
  total: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Files that could not be used, with the reason (one line each). */
  problems: WalkProblem[];
  /** Problems found by this refresh only (files read this time). */
  newProblems: WalkProblem[];
  generation: number;
  ms: number;
  /** True when the fingerprint matched and nothing was compared or read. */
  skipped: boolean;
  /** False when the deadline stopped the refresh: `pending` changed files were left for later. */
  complete: boolean;
  pending: number;
}

export interface RefreshOptions {
  /** Re-read every file (`recall index`). */
  force?: boolean;
  /** Also list the problems recorded earlier when nothing changed (default true; off on the hot path). */
  problems?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Stop (after committing the batch in hand) once this epoch-ms time has passed. */
  deadlineMs?: number;
  /** Longest a batch transaction is kept open, ms (default: by caller and driver, see below). */
  batchMs?: number;
  /** Most files applied in one batch (default: by caller, see below). */
  batchFiles?: number;
  /** Called after each committed batch (a background refresher refreshes its lock there). */
  onBatch?: () => void;
  now?: () => number;
}

/**
 * Batches of a refresh with a deadline (every hook): a batch transaction is closed after this long
 * or this many files, so the deadline holds, another writer (a hook saving note vectors) waits
 * little, and a kill loses at most one short batch.
 */
export const REFRESH_BATCH_MS = 200;
const REFRESH_BATCH_FILES = 500;
/**
 * Batches of a refresh without a deadline (`recall index`, the background refresher, a CLI
 * recall). Every commit flushes a new full-text segment that later merges cost again, so fewer,
 * larger batches index a cold KB faster; they stay under the busy timeout, which is all another
 * writer waits.
 */
const UNBOUNDED_BATCH_MS = 800;
const UNBOUNDED_BATCH_FILES = 4000;
/**
 * Without WAL (the wasm driver keeps a rollback journal) a reader waits while a batch is open, and a
 * writer that started its next batch at once would keep it waiting until its busy timeout. So such
 * batches stay well under the busy timeout, and while another process has the index open (see
 * announceReader) a refresh without a deadline waits after each batch until that process is done,
 * for NO_WAL_YIELD_MAX_MS at most (a process that keeps the index open for long slows the refresh
 * down, never stops it).
 */
const NO_WAL_BATCH_MS = 400;
const NO_WAL_YIELD_MAX_MS = 2000;
const NO_WAL_YIELD_STEP_MS = 20;
/** How long a write waits for another writer before giving up (SQLite busy timeout). */
const BUSY_TIMEOUT_MS = 1000;

const DDL = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, kind TEXT NOT NULL, mtime_ms REAL NOT NULL, size INTEGER NOT NULL,
  content_hash TEXT, problem TEXT);
CREATE TABLE IF NOT EXISTS notes (
  rowid INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, key TEXT NOT NULL, location TEXT NOT NULL,
  date_ms INTEGER, content_hash TEXT NOT NULL, declared_hash TEXT,
  title TEXT NOT NULL, tags TEXT NOT NULL, insight TEXT NOT NULL, extra TEXT NOT NULL, body TEXT NOT NULL,
  chunk TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS notes_key ON notes(key);
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
  const slug = path.basename(real).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40) || 'kb';
  const digest = createHash('sha1').update(real).digest('hex').slice(0, 12);
  return path.join(stateDir, 'index', `${slug}-${digest}${fileTag()}.sqlite`);
}

function prepareSchema(db: SqlDatabase): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'`).get();
  if (hasMeta) {
    const row = db.prepare(`SELECT v FROM meta WHERE k='schema'`).get() as { v: string } | undefined;
    if (row?.v === SCHEMA_VERSION) return;
    const tables = ['notes_fts', 'notes', 'files', 'sidecars', 'supersedes', 'vectors', ...GRAPH_TABLES, 'meta'];
    db.exec(tables.map((t) => `DROP TABLE IF EXISTS ${t};`).join('\n'));
  }
  db.exec(DDL);
  db.exec(GRAPH_DDL);
  db.exec(VECTOR_DDL);
  db.prepare(`INSERT OR REPLACE INTO meta(k, v) VALUES ('schema', ?), ('generation', '0'), ('fingerprint', '')`).run(
    SCHEMA_VERSION,
  );
}

export type DbFailure = 'corrupt' | 'full' | 'busy' | 'readonly' | 'other';

/** Free space under which an I/O error while writing `file` is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

function nearlyFull(file: string): boolean {
  try {
    const st = fs.statfsSync(path.dirname(file));
    return st.bavail * st.bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}

/**
 * What kind of failure an SQLite or file-system error is. Only 'corrupt' justifies throwing an index
 * away; a full disk, a busy writer or a read-only dir leave the file as it is. The wasm driver
 * reports a failed write as a plain I/O error whatever the cause: given the index `file`, such an
 * error on a file system with (almost) no space left counts as a full disk.
 */
export function classifyDbError(err: unknown, file?: string): DbFailure {
  // Every driver's way of saying it (see sqliteErrorCode), then the file system's own codes.
  const code = sqliteErrorCode(err) ?? String((err as { code?: unknown } | null)?.code ?? '');
  const msg = String((err as Error | null)?.message ?? '');
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code) || /malformed|not a database/i.test(msg)) return 'corrupt';
  if (/^SQLITE_FULL/.test(code) || code === 'ENOSPC' || code === 'EDQUOT' || /disk is full/i.test(msg)) return 'full';
  if (/^SQLITE_(BUSY|LOCKED)/.test(code) || /database (table )?is locked/i.test(msg)) return 'busy';
  if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(code) || ['EACCES', 'EROFS', 'EPERM'].includes(code)) return 'readonly';
  if (/^SQLITE_IOERR/.test(code) && file && file !== ':memory:' && nearlyFull(file)) return 'full';
  return 'other';
}

export class IndexUnavailableError extends Error {
  readonly code = 'E_INDEX';
  constructor(message: string, readonly failure: DbFailure) {
    super(message);
    this.name = 'IndexUnavailableError';
  }
}

/** Marker left next to an index whose data pages a query found corrupt: the next open checks it. */
const suspectFile = (file: string): string => `${file}.suspect`;

/** Remember that a query on this index reported corruption (checked and healed on the next open). */
export function markSuspect(h: IndexHandle): void {
  if (h.file === ':memory:') return;
  try {
    fs.writeFileSync(suspectFile(h.file), String(Date.now()), { mode: 0o600 });
  } catch {
    /* best effort: `recall index` heals too */
  }
}

/** Files SQLite keeps next to a database: the WAL pair (native drivers) or the rollback journal (wasm driver). */
const companions = (file: string): string[] => [`${file}-wal`, `${file}-shm`, `${file}-journal`];

/** Owner-only permissions on the index file and its companions (other users must not read notes or queries). */
function restrict(file: string): void {
  for (const f of [file, ...companions(file)]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch {
      /* not there (yet) */
    }
  }
}

/**
 * Move a corrupt index aside as `<file>.corrupt-<ts>` (for a post-mortem), keeping only the newest
 * such copy, and drop its companions (a journal left for the old file must never be replayed into
 * the new one).
 */
function setAside(file: string): string {
  const dir = path.dirname(file);
  const base = path.basename(file);
  try {
    for (const f of fs.readdirSync(dir)) if (f.startsWith(`${base}.corrupt-`)) fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    /* nothing to clean */
  }
  const aside = `${file}.corrupt-${Date.now()}`;
  fs.renameSync(file, aside);
  for (const f of [...companions(file), suspectFile(file)]) fs.rmSync(f, { force: true });
  return aside;
}

function openFile(file: string): SqlDatabase {
  const db = openDatabase(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // WAL lets readers see the last committed state while a refresh writes. The wasm driver cannot
    // share memory between processes, so SQLite keeps its rollback journal there.
    if (db.driver !== 'wasm') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    prepareSchema(db);
    restrict(file);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** True when SQLite's own check finds the file sound (run only when a query reported corruption). */
function passesQuickCheck(file: string): boolean {
  try {
    const db = openDatabase(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('PRAGMA quick_check(1)').get() as { quick_check?: string } | undefined;
      return row?.quick_check === 'ok';
    } finally {
      db.close();
    }
  } catch (err) {
    return classifyDbError(err) !== 'corrupt';
  }
}

/** What a handle carries from its open options (how its KB is walked and read). */
function handleOptions(opts: OpenIndexOptions): Pick<IndexHandle, 'followOutside' | 'fleetLedger' | 'attached'> {
  return { followOutside: opts.followOutside === true, ...(opts.fleetLedger ? { fleetLedger: opts.fleetLedger } : {}), attached: opts.attached ?? [] };
}

function memoryIndex(kbRoot: string, reason: string, opts: OpenIndexOptions): IndexHandle {
  const db = openDatabase(':memory:');
  prepareSchema(db);
  return { db, kbRoot, file: ':memory:', fallbackReason: reason, ...handleOptions(opts) };
}

/**
 * Replace a corrupt index by an empty one (the corrupt file is set aside, one copy kept). The old
 * handle is closed; refresh the returned one.
 */
export function rebuildIndex(h: IndexHandle, stateDir: string): IndexHandle {
  closeIndex(h);
  if (h.file !== ':memory:') {
    try {
      setAside(h.file);
    } catch {
      /* openIndex below reports what is wrong */
    }
  }
  const fresh = openIndex(h.kbRoot, stateDir, { followOutside: h.followOutside === true, ...(h.fleetLedger ? { fleetLedger: h.fleetLedger } : {}), attached: h.attached });
  return { ...fresh, fallbackReason: fresh.fallbackReason ?? 'the index was corrupt; set aside and rebuilt' };
}

export interface OpenIndexOptions {
  followOutside?: boolean;
  fleetLedger?: string;
  /** Folders indexed with the KB under their own path prefix (the pulled team shard). */
  attached?: readonly AttachedRoot[];
}

/**
 * Open (or create) the index for a KB root.
 * - A file SQLite reports as corrupt (on open, or by a query that left the suspect marker and a
 *   failed quick check) is set aside and rebuilt; `fallbackReason` says so.
 * - A full disk, a read-only state dir or a busy writer never cost the file: an existing index is
 *   opened as it is (recall reads its last committed state); only when there is none usable does the
 *   index live in memory for this process, and `fallbackReason` says why.
 */
export function openIndex(kbRoot: string, stateDir: string, opts: OpenIndexOptions = {}): IndexHandle {
  const file = indexFileFor(kbRoot, stateDir);
  let healed: string | null = null;
  try {
    mkdirPrivate(path.dirname(file));
  } catch (err) {
    return memoryIndex(kbRoot, `cannot write ${file} (${(err as Error).message}); using an in-memory index`, opts);
  }
  if (fs.existsSync(suspectFile(file))) {
    if (passesQuickCheck(file)) fs.rmSync(suspectFile(file), { force: true });
    else {
      try {
        setAside(file);
        healed = 'a query found the index corrupt (SQLite quick check failed)';
      } catch {
        /* opened below, and fails again below */
      }
    }
  }
  // Said before opening: a long refresh in another process then leaves this one gaps to read in.
  const noWal = sqliteDriver() === 'wasm';
  if (noWal) announceReader(file);
  for (let attempt = 0; ; attempt += 1) {
    try {
      const db = openFile(file);
      return { db, kbRoot, file, fallbackReason: healed ? `${healed}; set aside and rebuilt` : null, ...handleOptions(opts) };
    } catch (err) {
      const kind = classifyDbError(err, file);
      const msg = (err as Error).message;
      if (kind === 'corrupt' && attempt === 0) {
        try {
          setAside(file);
          healed = `index file was unreadable (${msg})`;
          continue;
        } catch {
          /* cannot move it: fall through to memory */
        }
      }
      if (kind === 'busy' && attempt === 0) continue;
      if (noWal) withdrawReader(file);
      const why = kind === 'full' ? 'the disk is full' : kind === 'busy' ? 'it is locked by another process' : msg;
      return memoryIndex(kbRoot, `cannot use ${file} (${why}); using an in-memory index`, opts);
    }
  }
}

/**
 * Processes that have a no-WAL index open say so with an empty file named by their pid in
 * `<index>.readers/`, so that a long refresh leaves them gaps (NO_WAL_PAUSE_MS). A file whose
 * process is gone is removed by the next writer that looks.
 */
const readersDir = (file: string): string => `${file}.readers`;

function announceReader(file: string): void {
  try {
    mkdirPrivate(readersDir(file));
    fs.writeFileSync(path.join(readersDir(file), String(process.pid)), '', { mode: 0o600 });
  } catch {
    /* best effort: without it a reader may wait for a batch, then use an in-memory index */
  }
}

function withdrawReader(file: string): void {
  try {
    fs.rmSync(path.join(readersDir(file), String(process.pid)), { force: true });
  } catch {
    /* already gone */
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether another live process has announced it reads this index. */
function otherReaders(file: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(readersDir(file));
  } catch {
    return false;
  }
  let any = false;
  for (const name of names) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) any = true;
    else fs.rmSync(path.join(readersDir(file), name), { force: true });
  }
  return any;
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** Between two batches of a no-WAL refresh: leave the index to other readers while there are any. */
function yieldToReaders(file: string): void {
  const until = Date.now() + NO_WAL_YIELD_MAX_MS;
  // The refresh is synchronous: block the thread (its lock is free meanwhile).
  while (Date.now() < until && otherReaders(file)) Atomics.wait(pauseCell, 0, 0, NO_WAL_YIELD_STEP_MS);
}

/** Digest of the listing (names, mtimes, sizes). A changed order only costs a full comparison, never a wrong answer. */
function fingerprint(files: KbFile[]): string {
  let text = '';
  for (const f of files) text += `${f.rel}\0${f.mtimeMs}\0${f.size}\n`;
  return createHash('sha1').update(text).digest('hex');
}

type ReadOutcome = { text: string } | { problem: string };

/**
 * Read a note, bounded whatever stat said: at most MAX_NOTE_BYTES + 1 bytes are read (a file in
 * /proc or one growing under us reports a size that means nothing), the descriptor is opened
 * non-blocking (a FIFO swapped in after the walk cannot hang the read) and must be a regular file.
 */
function readText(file: KbFile): ReadOutcome {
  const tooLarge = (n: number): ReadOutcome => ({
    problem: `file too large (${(n / 1048576).toFixed(1)} MiB > ${MAX_NOTE_BYTES / 1048576} MiB limit)`,
  });
  if (file.size > MAX_NOTE_BYTES) return tooLarge(file.size);
  let fd: number;
  try {
    fd = fs.openSync(file.abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    return { problem: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
  let buf: Buffer;
  try {
    if (!fs.fstatSync(fd).isFile()) return { problem: 'not a regular file; not read' };
    const cap = MAX_NOTE_BYTES + 1;
    buf = Buffer.allocUnsafe(Math.min(cap, Math.max(file.size, 4096)));
    let len = 0;
    for (;;) {
      if (len === buf.length) {
        if (len >= cap) break;
        const bigger = Buffer.allocUnsafe(Math.min(cap, buf.length * 2));
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = fs.readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
    }
    if (len > MAX_NOTE_BYTES) return tooLarge(len);
    buf = buf.subarray(0, len);
  } catch (err) {
    return { problem: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
  if (buf.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { problem: 'binary file (contains NUL bytes)' };
  return { text: buf.toString('utf8') };
}

/** Ids a note declares it replaces (`supersedes`: a string or a list). */
function supersedesTargets(note: Note): string[] {
  const v = note.frontmatter['supersedes'];
  const list = Array.isArray(v) ? v : [v];
  return [...new Set(list.map(str).filter((t) => t && t.toLowerCase() !== 'null'))];
}

/** Metadata stored as JSON: the Note without its two large text fields. */
type StoredMeta = Omit<Note, 'body' | 'chunkText'>;

function noteRow(note: Note): Record<string, unknown> {
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

function getMeta(db: SqlDatabase, k: string): string {
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
 * Bring the index in line with the KB on disk. Only files whose mtime or size changed are read;
 * a broken file is recorded as a problem and skipped, never fatal.
 *
 * Changed files are applied in batches, each its own transaction (short with a deadline, longer
 * without: see REFRESH_BATCH_MS and UNBOUNDED_BATCH_MS), so a reader sees progress, a kill loses one batch at most, and `deadlineMs` can stop the refresh
 * between batches (`complete: false`, `pending` files left). The listing's fingerprint is stored
 * only by a refresh that completed, so an interrupted one is simply continued by the next call.
 * Errors of the database (full disk, busy writer, corruption) are thrown to the caller, after the
 * batch in hand was rolled back; batches committed before stay.
 */
export function refreshIndex(h: IndexHandle, opts: RefreshOptions = {}): RefreshReport {
  const now = opts.now ?? Date.now;
  const t0 = performance.now();
  const deadline = opts.deadlineMs ?? Infinity;
  const bounded = opts.deadlineMs !== undefined;
  const noWal = h.db.driver === 'wasm' && h.file !== ':memory:';
  const batchMs = opts.batchMs ?? (bounded ? REFRESH_BATCH_MS : noWal ? NO_WAL_BATCH_MS : UNBOUNDED_BATCH_MS);
  const batchFiles = opts.batchFiles ?? (bounded ? REFRESH_BATCH_FILES : UNBOUNDED_BATCH_FILES);
  const { files, problems: walkProblems } = walkWithAttached(h.kbRoot, h.attached, { followOutside: h.followOutside === true });
  const fp = fingerprint(files);
  const db = h.db;
  let generation = Number(getMeta(db, 'generation')) || 0;
  if (!opts.force && fp === getMeta(db, 'fingerprint')) {
    return {
      total: files.length, added: 0, updated: 0, removed: 0, unchanged: files.length,
      problems: opts.problems === false ? [] : indexProblems(h), newProblems: [], generation,
      ms: performance.now() - t0, skipped: true, complete: true, pending: 0,
    };
  }

  const known = new Map<string, { mtime_ms: number; size: number; content_hash: string | null }>();
  for (const r of db.prepare(`SELECT path, mtime_ms, size, content_hash FROM files`).all() as {
    path: string; mtime_ms: number; size: number; content_hash: string | null;
  }[]) known.set(r.path, r);

  const upsertFile = db.prepare(
    `INSERT INTO files(path, kind, mtime_ms, size, content_hash, problem) VALUES (@path, @kind, @mtime_ms, @size, @content_hash, @problem)
     ON CONFLICT(path) DO UPDATE SET kind=excluded.kind, mtime_ms=excluded.mtime_ms, size=excluded.size,
       content_hash=excluded.content_hash, problem=excluded.problem`,
  );
  const deleteFile = db.prepare(`DELETE FROM files WHERE path = ?`);
  const deleteNote = db.prepare(`DELETE FROM notes WHERE path = ?`);
  const deleteSidecar = db.prepare(`DELETE FROM sidecars WHERE path = ?`);
  const deleteSupersedes = db.prepare(`DELETE FROM supersedes WHERE by_path = ?`);
  const insertSupersedes = db.prepare(`INSERT INTO supersedes(target, by_path, by_key) VALUES (?, ?, ?)`);
  const graph = new GraphWriter(db);
  const deleteVector = db.prepare(`DELETE FROM vectors WHERE path = ?`);
  const upsertNote = db.prepare(
    `INSERT INTO notes(path, key, location, date_ms, content_hash, declared_hash, title, tags, insight, extra, body, chunk, data)
     VALUES (@path, @key, @location, @date_ms, @content_hash, @declared_hash, @title, @tags, @insight, @extra, @body, @chunk, @data)
     ON CONFLICT(path) DO UPDATE SET key=excluded.key, location=excluded.location, date_ms=excluded.date_ms,
       content_hash=excluded.content_hash, declared_hash=excluded.declared_hash, title=excluded.title, tags=excluded.tags,
       insight=excluded.insight, extra=excluded.extra, body=excluded.body, chunk=excluded.chunk, data=excluded.data`,
  );
  const upsertSidecar = db.prepare(
    `INSERT OR REPLACE INTO sidecars(path, note_path, document_id, data) VALUES (?, ?, ?, ?)`,
  );
  const setGeneration = db.prepare(`INSERT OR REPLACE INTO meta(k, v) VALUES ('generation', ?)`);
  let fleet: FleetLookup | undefined;
  const fleetLookup = (): FleetLookup | undefined => (h.fleetLedger ? (fleet ??= loadFleetLedger(h.fleetLedger)) : undefined);

  let added = 0;
  let updated = 0;
  let removed = 0;
  let unchanged = 0;
  const newProblems: WalkProblem[] = [];
  const seen = new Set<string>();
  const todo: KbFile[] = [];
  for (const f of files) {
    seen.add(f.rel);
    const prev = known.get(f.rel);
    if (!opts.force && prev && prev.mtime_ms === f.mtimeMs && prev.size === f.size) unchanged += 1;
    else todo.push(f);
  }
  const gone = [...known.keys()].filter((p) => !seen.has(p));

  /** Apply one changed file; returns whether the index content changed. */
  const applyFile = (f: KbFile): boolean => {
    const prev = known.get(f.rel);
    const read = readText(f);
    let problem: string | null = null;
    let hash: string | null = null;
    if ('problem' in read) {
      problem = read.problem;
    } else if (f.kind === 'note' && isMemoryIndex(f.rel, read.text)) {
      problem = "Claude Code's index of the other memory files (links only), not a learning";
    } else {
      hash = createHash('sha256').update(read.text).digest('hex');
      if (!opts.force && prev && prev.content_hash === hash) {
        // Touched but identical: record the new stat data only.
        upsertFile.run({ path: f.rel, kind: f.kind, mtime_ms: f.mtimeMs, size: f.size, content_hash: hash, problem: null });
        unchanged += 1;
        return false;
      }
      try {
        if (f.kind === 'note') {
          const parsed = parseNote(read.text, f.rel, f.location as NoteLocation, fleetLookup());
          // A note of an attached root (the team shard) gets its provenance from that root.
          const decorate = decoratorFor(h.attached, f.rel);
          const note = decorate ? decorate(parsed, f.abs) : parsed;
          upsertNote.run(noteRow(note));
          deleteSupersedes.run(f.rel);
          if (note.location === 'documents') for (const t of supersedesTargets(note)) insertSupersedes.run(t, f.rel, note.key);
          graph.replace(f.rel, f.rel, note.key, graphFromMapping(note.frontmatter['entities'], note.frontmatter['causal_relations']));
        } else {
          const data = parseYamlMapping(read.text);
          const notePath = f.rel.replace(/\.entities\.yaml$/, '.md');
          upsertSidecar.run(f.rel, notePath, str(data['document_id']) || null, JSON.stringify(data));
          graph.replace(f.rel, notePath, str(data['document_id']) || null, graphFromMapping(data['entities'], data['relationships']));
        }
      } catch (err) {
        // A database failure ends the batch (rolled back); anything else is this file's problem.
        if (sqliteErrorCode(err) !== null) throw err;
        problem = (err as Error).message.split('\n')[0] ?? 'unreadable';
      }
    }
    if (problem !== null) {
      deleteNote.run(f.rel);
      deleteSupersedes.run(f.rel);
      graph.remove(f.rel);
      deleteSidecar.run(f.rel);
      newProblems.push({ rel: f.rel, message: problem });
    }
    upsertFile.run({ path: f.rel, kind: f.kind, mtime_ms: f.mtimeMs, size: f.size, content_hash: hash, problem });
    if (prev) updated += 1;
    else added += 1;
    return true;
  };

  let next = 0;
  const batch = db.transaction((): boolean => {
    const started = performance.now();
    let changed = false;
    let n = 0;
    while (next < todo.length && n < batchFiles && (n === 0 || performance.now() - started < batchMs)) {
      if (applyFile(todo[next]!)) changed = true;
      next += 1;
      n += 1;
      if (opts.onProgress && (next % 200 === 0 || next === todo.length)) opts.onProgress(unchanged + next, files.length);
    }
    if (changed) setGeneration.run(String((generation += 1)));
    return changed;
  });
  while (next < todo.length) {
    if (now() >= deadline) break;
    const before = { generation, added, updated, unchanged, problems: newProblems.length, next };
    try {
      batch.immediate();
    } catch (err) {
      // Rolled back: the counters of the lost batch must not be reported.
      ({ generation, added, updated, unchanged, next } = before);
      newProblems.length = before.problems;
      throw err;
    }
    opts.onBatch?.();
    if (noWal && !bounded && next < todo.length) yieldToReaders(h.file);
  }
  const pending = todo.length - next;
  if (pending > 0) {
    return {
      total: files.length, added, updated, removed, unchanged,
      problems: indexProblems(h), newProblems: [...walkProblems, ...newProblems], generation,
      ms: performance.now() - t0, skipped: false, complete: false, pending,
    };
  }

  const finish = db.transaction(() => {
    for (const p of gone) {
      deleteFile.run(p);
      deleteNote.run(p);
      deleteSidecar.run(p);
      deleteSupersedes.run(p);
      graph.remove(p);
      deleteVector.run(p);
      removed += 1;
    }
    if (updated + removed > 0 || opts.force === true) graph.pruneOrphans();
    if (removed > 0 || (opts.force === true && added + updated === 0)) generation += 1;
    db.prepare(`INSERT OR REPLACE INTO meta(k, v) VALUES ('fingerprint', ?), ('generation', ?), ('walk_problems', ?)`).run(
      fp,
      String(generation),
      JSON.stringify(walkProblems),
    );
  });
  finish.immediate();
  if (opts.onProgress && todo.length === 0) opts.onProgress(files.length, files.length);
  return {
    total: files.length, added, updated, removed, unchanged,
    problems: indexProblems(h), newProblems: [...walkProblems, ...newProblems], generation,
    ms: performance.now() - t0, skipped: false, complete: true, pending: 0,
  };
}

const NOTE_COLS = `n.data AS data, n.body AS body, n.chunk AS chunk`;

export interface ScoredRow {
  note: Note;
  score: number;
}

/** BM25 column weights: title, tags, key insight, structured fields, body. */
export const BM25_WEIGHTS = [4, 2, 2, 1.5, 1] as const;

/**
 * FTS5 BM25 search over live notes (only documents/ notes are in the FTS index). `match` is an FTS5
 * query string. Scores are returned positive (higher is better).
 */
export function searchFts(h: IndexHandle, match: string, limit: number): ScoredRow[] {
  const top = h.db
    .prepare(`SELECT rowid AS id, bm25(notes_fts, ${BM25_WEIGHTS.join(', ')}) AS s FROM notes_fts WHERE notes_fts MATCH ? ORDER BY s LIMIT ?`)
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
  const rows = h.db
    .prepare(`SELECT target, by_key FROM supersedes WHERE target IN (${keys.map(() => '?').join(',')})`)
    .all(...keys) as { target: string; by_key: string }[];
  for (const r of rows) if (r.target !== r.by_key && !out.has(r.target)) out.set(r.target, r.by_key);
  return out;
}

export function countNotes(h: IndexHandle): { live: number; archived: number; forgotten: number } {
  const rows = h.db.prepare(`SELECT location, COUNT(*) AS c FROM notes GROUP BY location`).all() as {
    location: NoteLocation;
    c: number;
  }[];
  const out = { live: 0, archived: 0, forgotten: 0 };
  for (const r of rows) out[r.location === 'documents' ? 'live' : r.location] = r.c;
  return out;
}

/** How long one statement on this handle waits for another process's lock (SQLite busy timeout). */
export function setBusyTimeout(h: IndexHandle, ms: number): void {
  try {
    h.db.pragma(`busy_timeout = ${Math.max(0, Math.round(ms))}`);
  } catch {
    /* closed: nothing waits on it any more */
  }
}

export function closeIndex(h: IndexHandle): void {
  try {
    h.db.close();
  } catch {
    /* already closed */
  }
  if (h.db.driver === 'wasm' && h.file !== ':memory:') withdrawReader(h.file);
}

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
  const current = (h.db
    .prepare(
      `SELECT COUNT(*) AS c FROM vectors v JOIN notes n ON n.path = v.path
       WHERE n.location = 'documents' AND v.model = ? AND v.content_hash = n.content_hash`,
    )
    .get(model) as { c: number }).c;
  const live = (h.db.prepare(`SELECT COUNT(*) AS c FROM notes WHERE location = 'documents'`).get() as { c: number }).c;
  const other = h.db.prepare(`SELECT model, COUNT(*) AS c FROM vectors WHERE model != ? GROUP BY model ORDER BY c DESC`).all(model) as {
    model: string;
    c: number;
  }[];
  return { current, live, otherModel: other.reduce((n, r) => n + r.c, 0), otherModelName: other[0]?.model ?? null };
}

/** How many live notes lack a current vector from `model`. */
export function countMissingVectors(h: IndexHandle, model: string): number {
  return (h.db
    .prepare(
      `SELECT COUNT(*) AS c FROM notes n LEFT JOIN vectors v ON v.path = n.path AND v.model = ? AND v.content_hash = n.content_hash
       WHERE n.location = 'documents' AND v.path IS NULL`,
    )
    .get(model) as { c: number }).c;
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

/**
 * Statements the relevance estimate runs on every recall, prepared once per connection. Lists are
 * passed as one JSON array (`json_each`) so the statement text does not change with their length.
 */
interface RelevanceStatements {
  df: SqlStatement;
  live: SqlStatement;
  shared: SqlStatement;
  edges: SqlStatement;
}
const relevanceStatements = new WeakMap<SqlDatabase, RelevanceStatements>();

function statementsFor(h: IndexHandle): RelevanceStatements {
  let st = relevanceStatements.get(h.db);
  if (st) return st;
  // A temp table is per connection and never written to the index file (works on a read-only index).
  h.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.notes_vocab USING fts5vocab(main, notes_fts, 'row')`);
  // Mentions are indexed by the file they came from (the note itself or its entity sidecar); a
  // candidate entity's note count is bounded by a LIMIT so a hub named by thousands of notes costs
  // no more than a specific one.
  const candidateMentions = `cm AS (SELECT DISTINCT entity_id, note_path FROM mentions
      WHERE source IN (SELECT value FROM json_each(@sources)) AND note_path IN (SELECT value FROM json_each(@notes)))`;
  st = {
    df: h.db.prepare(`SELECT term, doc FROM temp.notes_vocab WHERE term IN (SELECT value FROM json_each(?))`),
    live: h.db.prepare(`SELECT COUNT(*) AS c FROM notes WHERE location = 'documents'`),
    shared: h.db.prepare(
      `WITH ${candidateMentions},
            specific AS (SELECT DISTINCT entity_id FROM cm
                         WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM mentions m WHERE m.entity_id = cm.entity_id LIMIT @cap)) < @cap)
       SELECT DISTINCT a.note_path AS a, b.note_path AS b FROM cm a
       JOIN cm b ON b.entity_id = a.entity_id AND b.note_path > a.note_path
       WHERE a.entity_id IN (SELECT entity_id FROM specific)`,
    ),
    // A relationship links two notes only between specific entities: an edge into a hub
    // ("idempotency → postgres") would link a note to every note that names the hub.
    edges: h.db.prepare(
      `WITH ${candidateMentions},
            specific AS (SELECT DISTINCT entity_id FROM cm
                         WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM mentions m WHERE m.entity_id = cm.entity_id LIMIT @cap)) < @cap)
       SELECT DISTINCT a.note_path AS a, b.note_path AS b FROM cm a
       JOIN edges e ON e.src = a.entity_id JOIN cm b ON b.entity_id = e.dst
       WHERE e.retired = 0 AND (e.valid_end_ms IS NULL OR e.valid_end_ms > @now) AND a.note_path != b.note_path
         AND a.entity_id IN (SELECT entity_id FROM specific) AND b.entity_id IN (SELECT entity_id FROM specific)`,
    ),
  };
  relevanceStatements.set(h.db, st);
  return st;
}

/**
 * How many live notes contain each stem (the FTS5 vocabulary of the live-notes index, so stems
 * must be Porter stems as the index makes them), and how many live notes there are.
 */
export function termStats(h: IndexHandle, stems: readonly string[]): { live: number; df: Map<string, number> } {
  const st = statementsFor(h);
  const df = new Map<string, number>();
  if (stems.length) for (const r of st.df.all(JSON.stringify([...new Set(stems)])) as { term: string; doc: number }[]) df.set(r.term, r.doc);
  return { live: (st.live.get() as { c: number }).c, df };
}

/**
 * Pairs among the given notes (by path) that the KB's entity graph links: both mention the same
 * entity, when that entity is named by at most `maxNotesPerEntity` notes (a hub such as "postgres"
 * links everything and so nothing), or a live relationship joins an entity of one to an entity of
 * the other, both specific in the same sense (a relationship whose validity has ended does not
 * count). Symmetric; a note is never linked to itself.
 */
export function linkedNotes(h: IndexHandle, paths: readonly string[], maxNotesPerEntity: number, nowMs: number): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const unique = [...new Set(paths)];
  if (unique.length < 2) return out;
  const st = statementsFor(h);
  const sources = JSON.stringify(unique.flatMap((p) => [p, p.replace(/\.md$/, '.entities.yaml')]));
  const notes = JSON.stringify(unique);
  const link = (a: string, b: string): void => {
    if (a === b) return;
    if (!out.has(a)) out.set(a, new Set());
    if (!out.has(b)) out.set(b, new Set());
    out.get(a)!.add(b);
    out.get(b)!.add(a);
  };
  for (const r of st.shared.all({ sources, notes, cap: maxNotesPerEntity + 1 }) as { a: string; b: string }[]) link(r.a, r.b);
  for (const r of st.edges.all({ sources, notes, now: nowMs, cap: maxNotesPerEntity + 1 }) as { a: string; b: string }[]) link(r.a, r.b);
  return out;
}
