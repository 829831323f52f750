/**
 * The two native SQLite drivers: better-sqlite3 (the native addon, which already has the API
 * recall uses) and Node's built-in node:sqlite.
 */
import { createRequire } from 'node:module';
import type { Opener, SqlStatement, SqlTransaction } from './sqlite.js';
import { bindValue, isNamed, transactionOver } from './tx.js';

const req = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// better-sqlite3: already has this API; only the binding check is ours.

export function betterSqliteOpener(): Opener {
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

export function nodeSqliteOpener(): Opener {
  // node:sqlite announces itself with an ExperimentalWarning on stderr; a hook's stderr should stay quiet.
  // Kept as it is, to be put back unchanged; it is called with `.call(process, …)` below.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const emit = process.emitWarning;
  let mod: NodeSqliteModule;
  try {
    process.emitWarning = (w: string | Error, ...rest: unknown[]) => {
      const text = typeof w === 'string' ? w : w.message;
      if (/SQLite/i.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, w, ...rest);
    };
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
