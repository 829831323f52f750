/**
 * The wasm driver: node-sqlite3-wasm (SQLite compiled to WebAssembly) behind recall's SQLite
 * interface, with a bounded cache of prepared statements and the lock keeping of sqlite-wasm-lock.
 */
import { createRequire } from 'node:module';
import type { Opener, OpenOptions, SqlDatabase, SqlStatement } from './sqlite.js';
import { bindValue, isNamed, transactionOver } from './tx.js';
import { clearStaleWasmLock, WasmLockKeeper } from './wasm-lock.js';

const req = createRequire(import.meta.url);

/** Page cache of the wasm driver (KiB): each read goes through JavaScript, so re-reads are costly. */
const WASM_CACHE_KIB = 32_768;
/** Prepared statements kept per wasm connection (their memory lives in the WebAssembly heap). */
const WASM_STATEMENT_CACHE = 256;

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

/** Finalize a statement whose last error was already reported; it is finalized all the same. */
function finalizeQuietly(st: WasmStatement): void {
  try {
    st.finalize();
  } catch {
    /* its last error was reported when it happened; finalized all the same */
  }
}

/** Statements hold WebAssembly memory until finalized: reuse them (least recently used out) and finalize on close. */
class StatementCache {
  private readonly statements = new Map<string, WasmStatement>();

  constructor(private readonly db: WasmDatabase) {}

  get(sql: string): WasmStatement {
    let st = this.statements.get(sql);
    if (st) {
      this.statements.delete(sql);
      this.statements.set(sql, st);
      return st;
    }
    st = this.db.prepare(sql);
    this.statements.set(sql, st);
    if (this.statements.size > WASM_STATEMENT_CACHE) {
      const [oldest, old] = this.statements.entries().next().value as [string, WasmStatement];
      this.statements.delete(oldest);
      finalizeQuietly(old);
    }
    return st;
  }

  /** Drop a statement whose step failed, if it is still the cached one. */
  drop(sql: string, st: WasmStatement): void {
    if (this.statements.get(sql) !== st) return;
    this.statements.delete(sql);
    finalizeQuietly(st);
  }

  clear(): void {
    // finalize() rethrows the last error its statement met (a full disk, a busy lock): that
    // error was reported when it happened and must not keep the connection open now.
    for (const st of this.statements.values()) finalizeQuietly(st);
    this.statements.clear();
  }
}

/** Parameters as node-sqlite3-wasm takes them: named ones keyed with their sigil, positional ones as an array. */
function wasmArgs(params: unknown[]): unknown {
  if (isNamed(params)) return Object.fromEntries(Object.entries(params[0]).map(([k, v]) => [/^[@:$]/.test(k) ? k : `@${k}`, bindValue(v)]));
  return params.length === 0 ? undefined : params.map(bindValue);
}

/**
 * A statement looked up in the cache on every call (the cache may have finalized one the caller
 * still holds). A statement whose step failed (a busy lock, a full disk) keeps that error, and its
 * next use fails with "Could not reset statement" before it runs: it is dropped from the cache so
 * the next call prepares it afresh.
 */
function wasmStatement(cache: StatementCache, lock: WasmLockKeeper, sql: string): SqlStatement {
  cache.get(sql);
  const use = <T>(fn: (st: WasmStatement) => T): T => {
    lock.heartbeat();
    const st = cache.get(sql);
    try {
      return fn(st);
    } catch (err) {
      cache.drop(sql, st);
      throw err;
    }
  };
  return {
    run: (...p) => use((st) => st.run(wasmArgs(p))),
    // all()[0], not get(): node-sqlite3-wasm's get() leaves the statement open, and an open
    // statement keeps its read lock (the lock directory) until the statement is reset.
    get: (...p) => use((st) => st.all(wasmArgs(p))[0]),
    all: (...p) => use((st) => st.all(wasmArgs(p))),
  };
}

function openWasm(mod: WasmModule, file: string, opts: OpenOptions): SqlDatabase {
  if (file !== ':memory:') clearStaleWasmLock(file);
  const db = new mod.Database(file, { readOnly: opts.readonly === true, fileMustExist: opts.fileMustExist === true });
  const exec = (sql: string): void => db.exec(sql);
  try {
    exec(`PRAGMA cache_size = -${WASM_CACHE_KIB}`);
  } catch {
    /* not a database (yet): the caller's first statement reports it */
  }
  const cache = new StatementCache(db);
  const lock = new WasmLockKeeper(file, () => db.inTransaction);
  return {
    driver: 'wasm',
    prepare: (sql) => wasmStatement(cache, lock, sql),
    exec,
    pragma: (setting) => exec(`PRAGMA ${setting}`),
    transaction: transactionOver(exec, () => db.inTransaction, { begin: () => lock.begin(), end: () => lock.end() }),
    close: () => {
      cache.clear();
      db.close();
    },
  };
}

export function wasmOpener(): Opener {
  const mod = req('node-sqlite3-wasm') as WasmModule;
  return (file, opts) => openWasm(mod, file, opts);
}
