/**
 * The SQLite driver the suite runs on, handed to the recall processes a spec starts (which get a
 * clean environment): `RECALL_SQLITE_DRIVER=wasm npm test` then runs them on that driver too.
 */
export function driverEnv(): Record<string, string> {
  const d = process.env['RECALL_SQLITE_DRIVER'];
  return d ? { RECALL_SQLITE_DRIVER: d } : {};
}
