/**
 * Opening an index file, and telling its failures apart: a file SQLite reports as corrupt is set
 * aside (one copy kept) and rebuilt; a full disk, a busy writer or a read-only state dir never cost
 * the file, and when no file is usable the index lives in memory for this process (and says why).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, sqliteDriver, sqliteErrorCode, type SqlDatabase } from '../sqlite/index.js';
import { checkStateDir, mkdirPrivate } from '../../io/private-fs.js';
import type { AttachedRoot } from '../kb/index.js';
import { BUSY_TIMEOUT_MS, indexFileFor, prepareSchema } from './schema.js';
import { announceReader, withdrawReader } from './readers.js';
import type { IndexHandle } from './handle.js';

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
  constructor(
    message: string,
    readonly failure: DbFailure,
  ) {
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
      // A regular file only, never through a link: an index path that is (or was swapped for) a
      // device or a link to someone else's file must not have its mode changed.
      if (fs.lstatSync(f).isFile()) fs.chmodSync(f, 0o600);
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
  return {
    followOutside: opts.followOutside === true,
    ...(opts.fleetLedger ? { fleetLedger: opts.fleetLedger } : {}),
    attached: opts.attached ?? [],
  };
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
  const fresh = openIndex(h.kbRoot, stateDir, {
    followOutside: h.followOutside === true,
    ...(h.fleetLedger ? { fleetLedger: h.fleetLedger } : {}),
    attached: h.attached,
  });
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
  // The index holds every note's text: never in a folder another user owns.
  checkStateDir(stateDir);
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
