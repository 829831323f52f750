/**
 * What the node:sqlite and wasm drivers lack compared with better-sqlite3: a transaction helper
 * (with savepoints for nested calls) and better-sqlite3's way of binding parameters.
 */
import type { SqlTransaction } from './sqlite.js';

export function transactionOver(exec: (sql: string) => void, inTransaction: () => boolean, hooks: TxHooks = {}) {
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

export interface TxHooks {
  begin?: () => void;
  end?: () => void;
}

/** better-sqlite3 takes one object for named parameters and spreads positional ones; so do we. */
export function isNamed(params: unknown[]): params is [Record<string, unknown>] {
  const p = params[0];
  return params.length === 1 && p !== null && typeof p === 'object' && !(p instanceof Uint8Array) && !Array.isArray(p);
}

/** BLOBs come back as Uint8Array from both drivers; recall's vector code reads them as bytes either way. */
export function bindValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}
