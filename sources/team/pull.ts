/**
 * Pulling what changed in the team store since a cursor. Rows are tracked by the id of the
 * transaction that last wrote them, and a pull reads only below the oldest transaction still
 * running (everything below that horizon is final), so an incremental pull never misses a row
 * committed late.
 */
import type { StoreRow } from './shard.js';
import { ident, inTransaction, type TeamConnection } from './connection.js';
import { ROW_COLS, toStoreRow, type RawRow } from './rows.js';

/** Position of an incremental pull: the last (txid, id, revision) applied. */
export interface PullCursor {
  txid: string;
  id: string;
  revision: number;
}

export const START_CURSOR: PullCursor = { txid: '0', id: '', revision: 0 };
export interface PullPage {
  /** Every revision of each note changed in this page, by id. */
  notes: Map<string, StoreRow[]>;
  /** Cursor after this page. */
  cursor: PullCursor;
  rows: number;
}

/** Rows changed after `at` and below `horizon`, in order, at most `pageSize`. */
async function changedAfter(conn: TeamConnection, s: string, at: PullCursor, horizon: string, pageSize: number) {
  return conn.query<{ txid: string; id: string; revision: number }>(
    `SELECT txid::text AS txid, id, revision FROM ${s}.notes
     WHERE (txid, id, revision) > ($1::xid8, $2::text, $3::int) AND txid < $4::xid8
     ORDER BY txid, id, revision LIMIT $5`,
    [at.txid, at.id, at.revision, horizon, pageSize],
  );
}

/**
 * Read what changed since `cursor`, one page at a time, in one read-only snapshot. `onPage` applies
 * a page locally; the cursor it is handed is safe to save once that page is applied. Resolves with
 * the cursor at the end (the horizon: everything below it has been read).
 */
export async function pullChanges(
  conn: TeamConnection,
  cursor: PullCursor,
  pageSize: number,
  onPage: (page: PullPage) => Promise<void> | void,
): Promise<PullCursor> {
  const s = ident(conn.schema);
  const work = async (): Promise<PullCursor> => {
    const [h] = await conn.query<{ h: string; behind: boolean }>(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS h, pg_snapshot_xmin(pg_current_snapshot()) < $1::xid8 AS behind`,
      [cursor.txid],
    );
    const horizon = h!.h;
    // A store restored from a backup counts transactions from an earlier point than our position:
    // positions are meaningless then, so read everything again.
    let at = h!.behind ? START_CURSOR : cursor;
    for (;;) {
      const changed = await changedAfter(conn, s, at, horizon, pageSize);
      if (changed.length === 0) break;
      const ids = [...new Set(changed.map((c) => c.id))];
      const rows = await conn.query<RawRow>(`SELECT ${ROW_COLS} FROM ${s}.notes WHERE id = ANY($1::text[])`, [ids]);
      const notes = new Map<string, StoreRow[]>(ids.map((id) => [id, []]));
      for (const r of rows) notes.get(r.id)?.push(toStoreRow(r));
      const last = changed[changed.length - 1]!;
      at = { txid: last.txid, id: last.id, revision: last.revision };
      await onPage({ notes, cursor: at, rows: changed.length });
      if (changed.length < pageSize) break;
    }
    // Everything written below the horizon has been read: the next pull starts there.
    return { txid: horizon, id: '', revision: 0 };
  };
  return inTransaction(conn, work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}
