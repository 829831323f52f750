/**
 * SQLite behind one narrow interface (the subset of better-sqlite3's API that recall uses), so the
 * index works wherever recall is installed:
 *
 * - `better-sqlite3`: the native addon, fastest; present when `npm ci` ran its build step (a clone,
 *   CI). A plugin manager that installs dependencies without install scripts leaves it unbuilt.
 * - `node`: Node's built-in `node:sqlite` (Node ≥ 22.13), FTS5 included, nothing to build.
 * - `wasm`: node-sqlite3-wasm, SQLite compiled to WebAssembly with FTS5 and file access through
 *   Node's fs: runs on any platform and Node version with nothing built at install time.
 *
 * `auto` (the default) takes the first of these that loads in this process. RECALL_SQLITE_DRIVER
 * forces one (better-sqlite3 | node | wasm | auto); it is read from the process environment because
 * the choice is about which library this process can load, made once per process.
 *
 * The two native drivers share files (same SQLite, same POSIX locks, WAL). The wasm driver cannot
 * open a WAL database and its locks are lock directories that native SQLite does not see, so it must
 * never write a file a native driver writes: `fileTag()` gives its files a name of their own.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

export type SqliteDriver = 'better-sqlite3' | 'node' | 'wasm';
export const SQLITE_DRIVERS: readonly SqliteDriver[] = ['better-sqlite3', 'node', 'wasm'];

export interface SqlStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqlTransaction<A extends unknown[], T> {
  (...args: A): T;
  /** BEGIN IMMEDIATE: take the write lock up front (no upgrade deadlock between two writers). */
  immediate(...args: A): T;
}

export interface SqlDatabase {
  readonly driver: SqliteDriver;
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  /** Run a PRAGMA (`busy_timeout = 5000`, `journal_mode = WAL`); returns nothing. */
  pragma(setting: string): void;
  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqlTransaction<A, T>;
  close(): void;
}

export interface OpenOptions {
  readonly?: boolean;
  /** Fail instead of creating a missing file (reading someone else's database must never create it). */
  fileMustExist?: boolean;
}

const req = createRequire(import.meta.url);

/**
 * A node-sqlite3-wasm lock is a `<file>.lock` directory. A process killed inside a transaction
 * leaves it behind and every later open would wait and fail, so a lock older than this is taken
 * as abandoned. A live transaction refreshes its lock's time every WASM_LOCK_HEARTBEAT_MS, so only
 * a dead one ever gets this old.
 */
export const STALE_WASM_LOCK_MS = 30_000;
const WASM_LOCK_HEARTBEAT_MS = 5_000;
/** Page cache of the wasm driver (KiB): each read goes through JavaScript, so re-reads are costly. */
const WASM_CACHE_KIB = 32_768;
/** Prepared statements kept per wasm connection (their memory lives in the WebAssembly heap). */
const WASM_STATEMENT_CACHE = 256;

type Opener = (file: string, opts: OpenOptions) => SqlDatabase;

let forced: SqliteDriver | 'auto' | null = null;
let chosen: { driver: SqliteDriver; open: Opener } | null = null;
const unavailable = new Map<SqliteDriver, string>();

/** Force a driver for this process (tests, `RECALL_SQLITE_DRIVER`); `auto` restores the default choice. */
export function useSqliteDriver(driver: SqliteDriver | 'auto'): void {
  forced = driver;
  chosen = null;
}

function preference(): SqliteDriver | 'auto' {
  if (forced) return forced;
  const v = (process.env['RECALL_SQLITE_DRIVER'] ?? '').trim().toLowerCase();
  return (SQLITE_DRIVERS as readonly string[]).includes(v) ? (v as SqliteDriver) : 'auto';
}

/** Why each driver that was tried could not be loaded (for `recall index` and traces). */
export function sqliteUnavailable(): ReadonlyMap<SqliteDriver, string> {
  return unavailable;
}

/** The driver this process uses (loading it if needed). */
export function sqliteDriver(): SqliteDriver {
  return pick().driver;
}

function loader(driver: SqliteDriver): Opener {
  switch (driver) {
    case 'better-sqlite3':
      return betterSqliteOpener();
    case 'node':
      return nodeSqliteOpener();
    case 'wasm':
      return wasmOpener();
  }
}

function pick(): { driver: SqliteDriver; open: Opener } {
  if (chosen) return chosen;
  const pref = preference();
  const order = pref === 'auto' ? SQLITE_DRIVERS : [pref];
  const reasons: string[] = [];
  for (const driver of order) {
    try {
      chosen = { driver, open: loader(driver) };
      return chosen;
    } catch (err) {
      const reason = (err as Error).message.split('\n')[0] ?? String(err);
      unavailable.set(driver, reason);
      reasons.push(`${driver}: ${reason}`);
    }
  }
  throw new Error(`no SQLite driver could be loaded (${reasons.join('; ')})`);
}

/**
 * Suffix for the name of a database file this process creates and owns (before its extension):
 * '' for the native drivers, '.wasm' for the wasm driver (see the top of this file).
 */
export function fileTag(): string {
  return sqliteDriver() === 'wasm' ? '.wasm' : '';
}

/** Primary SQLite result codes recall tells apart, by number (node:sqlite reports `errcode`). */
const RESULT_CODES: Readonly<Record<number, string>> = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  23: 'SQLITE_AUTH',
  26: 'SQLITE_NOTADB',
};
/** SQLite's own message of each of those codes (node-sqlite3-wasm reports only the message). */
const RESULT_MESSAGES: readonly [RegExp, string][] = [
  [/database disk image is malformed|fts5: corrupt/i, 'SQLITE_CORRUPT'],
  [/file is not a database/i, 'SQLITE_NOTADB'],
  [/database or disk is full/i, 'SQLITE_FULL'],
  [/database is locked|database is busy/i, 'SQLITE_BUSY'],
  [/database table is locked/i, 'SQLITE_LOCKED'],
  [/attempt to write a readonly database/i, 'SQLITE_READONLY'],
  [/unable to open database file|could not open the database/i, 'SQLITE_CANTOPEN'],
  [/access permission denied/i, 'SQLITE_PERM'],
  [/disk I\/O error/i, 'SQLITE_IOERR'],
];

/**
 * The SQLite result code of an error thrown by any driver, as its name (`SQLITE_CORRUPT`,
 * `SQLITE_FULL`, …; better-sqlite3's extended names such as `SQLITE_IOERR_WRITE` are kept), or
 * null when the error does not come from SQLite. The drivers report it differently: better-sqlite3
 * as `code`, node:sqlite as a numeric `errcode`, node-sqlite3-wasm only through the message.
 * An SQLite error whose code cannot be told is `SQLITE_ERROR`.
 */
export function sqliteErrorCode(err: unknown): string | null {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown; name?: unknown } | null;
  if (!e || typeof e !== 'object') return null;
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) return e.code;
  const message = typeof e.message === 'string' ? e.message : '';
  const fromMessage = (): string => RESULT_MESSAGES.find(([re]) => re.test(message))?.[1] ?? 'SQLITE_ERROR';
  if (typeof e.errcode === 'number') return RESULT_CODES[e.errcode & 0xff] ?? fromMessage();
  if (e.code === 'ERR_SQLITE_ERROR' || e.name === 'SQLite3Error' || e.name === 'SqliteError') return fromMessage();
  return null;
}

/** True for SQLITE_BUSY / SQLITE_LOCKED from any driver: another process holds the file, which is intact. */
export function isBusyError(err: unknown): boolean {
  const code = sqliteErrorCode(err);
  if (code !== null && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /database (table )?is locked|database is busy/i.test(message);
}

/** Open (or create) a database file with the driver this process uses. */
export function openDatabase(file: string, opts: OpenOptions = {}): SqlDatabase {
  if (opts.fileMustExist && file !== ':memory:' && !fs.existsSync(file)) {
    throw new Error(`unable to open database file: ${file} does not exist`);
  }
  return pick().open(file, opts);
}

// ---------------------------------------------------------------------------------------------
// better-sqlite3: already has this API; only the binding check is ours.

function betterSqliteOpener(): Opener {
  const Better = req('better-sqlite3') as typeof import('better-sqlite3');
  // Loading the JS succeeds even when the addon was never built: open once to load the binding.
  new Better(':memory:').close();
  return (file, opts) => {
    const db = new Better(file, { readonly: opts.readonly === true, fileMustExist: opts.fileMustExist === true });
    return {
      driver: 'better-sqlite3',
      prepare: (sql) => db.prepare(sql),
      exec: (sql) => void db.exec(sql),
      pragma: (setting) => void db.pragma(setting),
      transaction: <A extends unknown[], T>(fn: (...args: A) => T) => db.transaction(fn) as unknown as SqlTransaction<A, T>,
      close: () => db.close(),
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Shared by the two drivers that have no transaction helper of their own.

function transactionOver(exec: (sql: string) => void, inTransaction: () => boolean, hooks: TxHooks = {}) {
  let depth = 0;
  return <A extends unknown[], T>(fn: (...args: A) => T): SqlTransaction<A, T> => {
    const run =
      (begin: string) =>
      (...args: A): T => {
        if (depth > 0 || inTransaction()) {
          // Nested call: a savepoint, so an inner failure undoes only the inner work.
          const name = `recall_sp_${depth}`;
          exec(`SAVEPOINT ${name}`);
          depth += 1;
          try {
            const out = fn(...args);
            exec(`RELEASE ${name}`);
            return out;
          } catch (err) {
            exec(`ROLLBACK TO ${name}`);
            exec(`RELEASE ${name}`);
            throw err;
          } finally {
            depth -= 1;
          }
        }
        exec(begin);
        depth += 1;
        hooks.begin?.();
        try {
          const out = fn(...args);
          exec('COMMIT');
          return out;
        } catch (err) {
          try {
            exec('ROLLBACK');
          } catch {
            /* SQLite already rolled back (a failed COMMIT, an I/O error) */
          }
          throw err;
        } finally {
          depth -= 1;
          hooks.end?.();
        }
      };
    const tx = run('BEGIN') as SqlTransaction<A, T>;
    tx.immediate = run('BEGIN IMMEDIATE');
    return tx;
  };
}

interface TxHooks {
  begin?: () => void;
  end?: () => void;
}

/** better-sqlite3 takes one object for named parameters and spreads positional ones; so do we. */
function isNamed(params: unknown[]): params is [Record<string, unknown>] {
  const p = params[0];
  return params.length === 1 && p !== null && typeof p === 'object' && !(p instanceof Uint8Array) && !Array.isArray(p);
}

/** BLOBs come back as Uint8Array from both drivers; recall's vector code reads them as bytes either way. */
function bindValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

// ---------------------------------------------------------------------------------------------
// node:sqlite (typed here: the Node 20 type definitions have no such module)

interface NodeStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface NodeSqliteModule {
  DatabaseSync: new (
    file: string,
    opts?: { readOnly?: boolean },
  ) => {
    exec(sql: string): void;
    prepare(sql: string): NodeStatement;
    close(): void;
    readonly isTransaction?: boolean;
  };
}

function nodeSqliteOpener(): Opener {
  // node:sqlite announces itself with an ExperimentalWarning on stderr; a hook's stderr should stay quiet.
  const emit = process.emitWarning;
  let mod: NodeSqliteModule;
  try {
    process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
      const text = typeof w === 'string' ? w : w.message;
      if (/SQLite/i.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, w, ...rest);
    }) as typeof process.emitWarning;
    mod = req('node:sqlite') as NodeSqliteModule;
  } finally {
    process.emitWarning = emit;
  }
  return (file, opts) => {
    const db = new mod.DatabaseSync(file, { readOnly: opts.readonly === true });
    const exec = (sql: string): void => db.exec(sql);
    const wrap = (stmt: NodeStatement): SqlStatement => {
      const args = (params: unknown[]): unknown[] =>
        isNamed(params) ? [Object.fromEntries(Object.entries(params[0]).map(([k, v]) => [k, bindValue(v)]))] : params.map(bindValue);
      return {
        run: (...p) => stmt.run(...args(p)),
        get: (...p) => stmt.get(...args(p)),
        all: (...p) => stmt.all(...args(p)),
      };
    };
    return {
      driver: 'node',
      prepare: (sql) => wrap(db.prepare(sql)),
      exec,
      pragma: (setting) => exec(`PRAGMA ${setting}`),
      transaction: transactionOver(exec, () => db.isTransaction === true),
      close: () => db.close(),
    };
  };
}

// ---------------------------------------------------------------------------------------------
// node-sqlite3-wasm

interface WasmStatement {
  run(values?: unknown): unknown;
  get(values?: unknown): unknown;
  all(values?: unknown): unknown[];
  finalize(): void;
}
interface WasmDatabase {
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): WasmStatement;
  close(): void;
}
type WasmModule = { Database: new (file: string, opts?: { readOnly?: boolean; fileMustExist?: boolean }) => WasmDatabase };

/** Remove a lock directory left by a process that died inside a transaction (see STALE_WASM_LOCK_MS). */
function clearStaleWasmLock(file: string, now = Date.now()): void {
  const lock = `${file}.lock`;
  try {
    const st = fs.statSync(lock);
    if (now - st.mtimeMs > STALE_WASM_LOCK_MS || ownerDied(file, st)) {
      fs.rmdirSync(lock);
      fs.rmSync(lockOwnerFile(file), { force: true });
    }
  } catch {
    /* no lock, or another process just took it over */
  }
}

/**
 * `<file>.lock-owner`: "pid inode" of the process holding the lock directory for a write
 * transaction, written once the transaction holds the lock and removed when it ends. A process
 * killed outright (SIGKILL) inside a transaction leaves both behind; its lock is then taken over at
 * once instead of after STALE_WASM_LOCK_MS. A lock without this record (a reader's statement, a
 * deferred transaction) only ever goes stale by age.
 */
const lockOwnerFile = (file: string): string => `${file}.lock-owner`;

/**
 * Whether the lock directory `st` was taken by a write transaction whose process is gone: the
 * record names this very directory (same inode, and the directory is not newer than the record,
 * since a live holder refreshes both together) and its pid no longer exists.
 */
function ownerDied(file: string, st: fs.Stats): boolean {
  try {
    const owner = lockOwnerFile(file);
    const [pidText, inoText] = fs.readFileSync(owner, 'utf8').split(' ');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || String(st.ino) !== inoText) return false;
    if (st.mtimeMs > fs.statSync(owner).mtimeMs) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    return false;
  }
}

/**
 * The default action of SIGINT/SIGTERM kills the process at once, even inside a synchronous
 * transaction, which would leave the lock directory behind. With a listener installed the signal
 * waits for the running JavaScript (the whole transaction) to finish, then kills the process the
 * way the signal intends. Installed on the first write transaction of a wasm connection.
 */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let signalsDeferred = false;

function onSignal(signal: NodeJS.Signals): void {
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

function deferSignals(): void {
  if (signalsDeferred) return;
  signalsDeferred = true;
  for (const s of SIGNALS) if (process.listenerCount(s) === 0) process.on(s, onSignal);
}

function wasmOpener(): Opener {
  const mod = req('node-sqlite3-wasm') as WasmModule;
  return (file, opts) => {
    if (file !== ':memory:') clearStaleWasmLock(file);
    const db = new mod.Database(file, { readOnly: opts.readonly === true, fileMustExist: opts.fileMustExist === true });
    const exec = (sql: string): void => db.exec(sql);
    try {
      exec(`PRAGMA cache_size = -${WASM_CACHE_KIB}`);
    } catch {
      /* not a database (yet): the caller's first statement reports it */
    }
    // Statements hold WebAssembly memory until finalized; reuse them and finalize on close.
    const statements = new Map<string, WasmStatement>();
    const statement = (sql: string): WasmStatement => {
      let st = statements.get(sql);
      if (st) {
        statements.delete(sql);
        statements.set(sql, st);
        return st;
      }
      st = db.prepare(sql);
      statements.set(sql, st);
      if (statements.size > WASM_STATEMENT_CACHE) {
        const [oldest, old] = statements.entries().next().value as [string, WasmStatement];
        statements.delete(oldest);
        try {
          old.finalize();
        } catch {
          /* its last error was reported when it happened; finalized all the same */
        }
      }
      return st;
    };
    const args = (params: unknown[]): unknown =>
      isNamed(params)
        ? Object.fromEntries(Object.entries(params[0]).map(([k, v]) => [/^[@:$]/.test(k) ? k : `@${k}`, bindValue(v)]))
        : params.length === 0
          ? undefined
          : params.map(bindValue);
    // Keep a long transaction's lock looking alive to other processes (see STALE_WASM_LOCK_MS).
    let lastBeat = 0;
    const heartbeat = (): void => {
      if (!db.inTransaction || file === ':memory:') return;
      const now = Date.now();
      if (now - lastBeat < WASM_LOCK_HEARTBEAT_MS) return;
      lastBeat = now;
      try {
        // The owner record first: a lock directory never looks newer than its record.
        if (claimed) fs.utimesSync(lockOwnerFile(file), now / 1000, now / 1000);
        fs.utimesSync(`${file}.lock`, now / 1000, now / 1000);
      } catch {
        /* no lock directory (yet): nothing to refresh */
      }
    };
    // The write transaction's lock, recorded with this pid (see lockOwnerFile).
    let claimed = false;
    const claim = (): void => {
      if (file === ':memory:') return;
      try {
        const st = fs.statSync(`${file}.lock`);
        fs.writeFileSync(lockOwnerFile(file), `${process.pid} ${st.ino}`, { mode: 0o600 });
        // One explicit time on both (a file's own write time may come from a coarser clock).
        const t = Date.now() / 1000;
        fs.utimesSync(lockOwnerFile(file), t, t);
        fs.utimesSync(`${file}.lock`, t, t);
        claimed = true;
      } catch {
        /* no lock directory yet (a deferred transaction): only age frees it */
      }
    };
    const unclaim = (): void => {
      if (!claimed) return;
      claimed = false;
      try {
        if (fs.readFileSync(lockOwnerFile(file), 'utf8').split(' ')[0] === String(process.pid))
          fs.rmSync(lockOwnerFile(file), { force: true });
      } catch {
        /* already gone */
      }
    };
    const tracked: TxHooks = { begin: () => (deferSignals(), (lastBeat = 0), heartbeat(), claim()), end: () => unclaim() };
    return {
      driver: 'wasm',
      // Looked up on every call: the cache may have finalized a statement the caller still holds.
      prepare: (sql) => {
        statement(sql);
        // A statement whose step failed (a busy lock, a full disk) keeps that error, and its next
        // use fails with "Could not reset statement" before it runs: drop it from the cache so the
        // next call prepares it afresh.
        const use = <T>(fn: (st: WasmStatement) => T): T => {
          heartbeat();
          const st = statement(sql);
          try {
            return fn(st);
          } catch (err) {
            if (statements.get(sql) === st) {
              statements.delete(sql);
              try {
                st.finalize();
              } catch {
                /* it reports the same error; finalized all the same */
              }
            }
            throw err;
          }
        };
        return {
          run: (...p) => use((st) => st.run(args(p))),
          // all()[0], not get(): node-sqlite3-wasm's get() leaves the statement open, and an open
          // statement keeps its read lock (the lock directory) until the statement is reset.
          get: (...p) => use((st) => st.all(args(p))[0]),
          all: (...p) => use((st) => st.all(args(p))),
        };
      },
      exec,
      pragma: (setting) => exec(`PRAGMA ${setting}`),
      transaction: transactionOver(exec, () => db.inTransaction, tracked),
      close: () => {
        // finalize() rethrows the last error its statement met (a full disk, a busy lock): that
        // error was reported when it happened and must not keep the connection open now.
        for (const st of statements.values()) {
          try {
            st.finalize();
          } catch {
            /* finalized all the same */
          }
        }
        statements.clear();
        db.close();
      },
    };
  };
}
