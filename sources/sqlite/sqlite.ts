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
import { betterSqliteOpener, nodeSqliteOpener } from './native.js';
import { wasmOpener } from './wasm.js';

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

export { STALE_WASM_LOCK_MS } from './wasm-lock.js';

export type Opener = (file: string, opts: OpenOptions) => SqlDatabase;

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
