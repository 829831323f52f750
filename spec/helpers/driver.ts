import { SQLITE_DRIVERS, sqliteDriver, useSqliteDriver, type SqliteDriver } from '../../sources/sqlite/sqlite.js';

/**
 * The SQLite driver the suite runs on, handed to the recall processes a spec starts (which get a
 * clean environment): `RECALL_SQLITE_DRIVER=wasm npm test` then runs them on that driver too.
 */
export function driverEnv(): Record<string, string> {
  const d = process.env['RECALL_SQLITE_DRIVER'];
  return d ? { RECALL_SQLITE_DRIVER: d } : {};
}

/** Drivers this Node can load (node:sqlite needs Node ≥ 22.13; better-sqlite3 needs its built addon). */
export function loadableDrivers(): SqliteDriver[] {
  const out: SqliteDriver[] = [];
  for (const d of SQLITE_DRIVERS) {
    useSqliteDriver(d);
    try {
      sqliteDriver();
      out.push(d);
    } catch {
      /* not on this machine */
    }
  }
  useSqliteDriver('auto');
  return out;
}
