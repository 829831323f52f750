/**
 * Pulling what changed in the team store since a cursor. Rows are tracked by the id of the
 * transaction that last wrote them, and a pull reads only below the oldest transaction still
 * running (everything below that horizon is final), so an incremental pull never misses a row
 * committed late. A transaction left open therefore holds every pull's view back for as long as it
 * stays open: the pull says so (`stalled`) rather than report "0 changes" as if nothing happened.
 */
import type { Projection, StoreRow } from './shard.js';
import { ident, inTransaction, type TeamConnection } from './connection.js';
import { byteBatches, chooseRevisions, loadContent } from './revisions.js';

/** Position of an incremental pull: the last (txid, id, revision) applied. */
export interface PullCursor {
  txid: string;
  id: string;
  revision: number;
}

export const START_CURSOR: PullCursor = { txid: '0', id: '', revision: 0 };
export interface PullPage {
  /**
   * The revision each note changed in this part of a page shows here (null: none), content read;
   * a projection over the size cap (`overCap`) is left unread, for the caller to skip.
   */
  notes: Map<string, Projection | null>;
  /** Cursor after this page, on its last part only (null: more parts of the same page follow). */
  cursor: PullCursor | null;
  /** Changed rows of the page (on its last part; 0 on the others). */
  rows: number;
}

/** A transaction open in the store that keeps committed changes out of every pull's view. */
export interface Stall {
  /** When it began, when this role may see that (pg_stat_activity shows it to its own role and to pg_read_all_stats), else null. */
  since: string | null;
  /** The role running it, when visible. */
  by: string | null;
  /** Changes committed after it began, waiting for it to end. */
  waiting: number;
}

export interface PullEnd {
  cursor: PullCursor;
  stalled: Stall | null;
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
 * Changes committed at or after the horizon (so not read by this pull), and the transaction that
 * holds the horizon when one does: null when nothing waits.
 */
async function stallOf(conn: TeamConnection, s: string, horizon: string): Promise<Stall | null> {
  const [w] = await conn.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${s}.notes WHERE txid >= $1::xid8`, [horizon]);
  const waiting = w?.n ?? 0;
  if (waiting === 0) return null;
  // The transaction whose id is the horizon (backend_xid holds the low 32 bits of it); its start and
  // role are hidden from other roles unless granted pg_read_all_stats, and a prepared one has no session.
  const [a] = await conn.query<{ since: Date | null; by: string | null }>(
    `SELECT xact_start AS since, usename AS by FROM pg_stat_activity
     WHERE backend_xid::text = ($1::xid8::text::numeric % 4294967296)::text AND xact_start IS NOT NULL LIMIT 1`,
    [horizon],
  );
  return { since: a?.since ? new Date(a.since).toISOString() : null, by: a?.by ?? null, waiting };
}

/** What holds every pull's view back right now (`recall team status`), or null. */
export async function storeStall(conn: TeamConnection): Promise<Stall | null> {
  const work = async (): Promise<Stall | null> => {
    const [h] = await conn.query<{ h: string }>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS h`);
    return stallOf(conn, ident(conn.schema), h!.h);
  };
  return inTransaction(conn, work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

/**
 * Read what changed since `cursor`, one page of at most `pageSize` changed rows at a time, in one
 * read-only snapshot. Each page's notes are reduced to the revision `choose` picks (read without
 * content), then handed to `onPage` in parts whose content stays within CONTENT_BATCH_BYTES; the
 * cursor a page's last part carries is safe to save once that part is applied. Resolves with the
 * cursor at the end (the horizon: everything below it has been read) and what holds it back.
 */
export async function pullChanges(
  conn: TeamConnection,
  cursor: PullCursor,
  pageSize: number,
  choose: (revisions: readonly StoreRow[]) => Projection | null,
  onPage: (page: PullPage) => Promise<void> | void,
): Promise<PullEnd> {
  const s = ident(conn.schema);
  const work = async (): Promise<PullEnd> => {
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
      const chosen = await chooseRevisions(conn, [...new Set(changed.map((c) => c.id))], choose);
      const last = changed[changed.length - 1]!;
      at = { txid: last.txid, id: last.id, revision: last.revision };
      const ids = [...chosen.keys()];
      const batches = byteBatches([...chosen.values()]);
      let i = 0;
      for (const [n, batch] of batches.entries()) {
        // Content is held for one batch at a time: `chosen` keeps none of it.
        const loaded = await loadContent(conn, batch);
        const notes = new Map(loaded.map((p, k) => [ids[i + k]!, p]));
        i += batch.length;
        const lastPart = n === batches.length - 1;
        await onPage({ notes, cursor: lastPart ? at : null, rows: lastPart ? changed.length : 0 });
      }
      if (changed.length < pageSize) break;
    }
    // Everything written below the horizon has been read: the next pull starts there.
    return { cursor: { txid: horizon, id: '', revision: 0 }, stalled: await stallOf(conn, s, horizon) };
  };
  return inTransaction(conn, work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}
