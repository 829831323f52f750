/**
 * The live team arm (RECALL_TEAM_ARM=1): the team store searched during a recall, as one more
 * arm under its own timeout (RECALL_TEAM_TIMEOUT, 2 s by default). Full-text search on the
 * server (an OR of the query's words, ranked by ts_rank_cd over the weighted title / insight /
 * fields / body vector) over the latest revision of each note published from other machines,
 * fused with note-vector similarity when an embedding model is installed here and the publishers
 * stored vectors of the same model (see searchStore).
 *
 * Each hit is the revision a pull would show of that note (sources/team/revisions.ts: the same
 * trust rules, the same code), shaped like a pulled note (same author and quarantine), so a note
 * found both live and in the pulled shard fuses into one candidate; a revision over the size cap
 * is never read. A connection failure, a query
 * error or a timeout gives nothing (the arm's outcome says why, password removed); on timeout or
 * when the recall no longer needs it, the connection is dropped at once. `pg` is loaded only
 * when this arm runs.
 */
import { Observable, firstValueFrom, timeout } from 'rxjs';
import type { ModelClient } from '../../core/ports.js';
import { parseNote } from '../../core/note/index.js';
import type { ArmHit } from '../../core/types.js';
import { renderPulledNote, shardFileName, teamKey, type Projection, type TeamSettings, type TeamConnection } from '../team/index.js';

/** Path prefix of live hits (they are not files; the prefix keeps them apart from KB and shard notes). */
export const TEAM_LIVE_PREFIX = '@team-live';

/** Share of the arm's budget the query embedding may use (the rest is for the store). */
const EMBED_SHARE = 0.5;

async function queryVector(
  models: ModelClient | null,
  query: string,
  budgetMs: number,
): Promise<{ model: string; query: number[] } | null> {
  if (!models?.models.embed) return null;
  try {
    const r = await firstValueFrom(models.embed(query, []).pipe(timeout(Math.max(1, budgetMs))));
    return r.available ? { model: r.model, query: r.query } : null;
  } catch {
    return null; // no vector: full text alone
  }
}

type Store = typeof import('../team/store.js');
const revKey = (id: string, revision: number): string => `${revision}\0${id}`;

/** A shown revision as the hit the arm returns: a pulled note's shape, scored as the revision that matched. */
function toHit(projection: Projection, storeId: string, now: string, score: number): ArmHit {
  const row = projection.row;
  const { text, provenance } = renderPulledNote(projection, storeId, now);
  const note = parseNote(text, `${TEAM_LIVE_PREFIX}/documents/${shardFileName(row.id)}`, 'documents');
  return {
    note: {
      ...note,
      key: teamKey(note.key, provenance.quarantine),
      authority: provenance.authority,
      quarantine: provenance.quarantine,
      origin: {
        kind: 'team',
        author: row.author,
        machine: row.machine,
        kb: row.kb,
        store: storeId,
        revision: row.revision,
        verified: true,
      },
    },
    score,
  };
}

/**
 * The notes matching the query, each at the revision a pull shows here (the pull's trust rules,
 * the same code): a note is a hit when that revision is one that matched, scored as that one.
 */
async function liveHits(
  store: Store,
  conn: TeamConnection,
  query: string,
  limit: number,
  settings: TeamSettings,
  vec: { model: string; query: number[] } | null,
): Promise<ArmHit[]> {
  const info = await store.storeInfo(conn);
  // Older revisions match too: twice the limit leaves room for several revisions of one note.
  const found = await store.searchStore(conn, query, limit * 2, settings.machine, vec ? { ...vec, pgvector: info.pgvector } : null);
  const score = new Map(found.map((h) => [revKey(h.id, h.revision), h.score]));
  const { choose, local } = await store.chooser(conn, settings);
  const chosen = await store.chooseRevisions(conn, [...new Set(found.map((h) => h.id))], choose);
  const shown = [...chosen.values()]
    .filter((p): p is Projection => p !== null && !store.overCap(p) && score.has(revKey(p.row.id, p.row.revision)))
    // What this role published from this machine is in its own KB (as the search leaves it out).
    .filter((p) => !(p.row.machine === settings.machine && p.row.author === local.role))
    .sort((a, b) => score.get(revKey(b.row.id, b.row.revision))! - score.get(revKey(a.row.id, a.row.revision))!)
    .slice(0, limit);
  const now = new Date().toISOString();
  return (await store.loadContent(conn, shown))
    .filter((p): p is Projection => p !== null)
    .map((p) => toHit(p, info.storeId, now, score.get(revKey(p.row.id, p.row.revision))!));
}

export function teamLiveArm(
  query: string,
  limit: number,
  settings: TeamSettings,
  timeoutMs: number,
  models: ModelClient | null = null,
): Observable<ArmHit[]> {
  return new Observable<ArmHit[]>((subscriber) => {
    let conn: TeamConnection | null = null;
    let closed = false;
    void (async () => {
      const store = await import('../team/store.js');
      const [opened, vec] = await Promise.all([
        store.openStore(settings, { connectTimeoutMs: Math.max(1, timeoutMs) }),
        queryVector(models, query, timeoutMs * EMBED_SHARE),
      ]);
      conn = opened;
      if (closed) return conn.destroy();
      subscriber.next(await liveHits(store, conn, query, limit, settings, vec));
      subscriber.complete();
    })()
      .catch((err: unknown) => subscriber.error(err))
      .finally(() => {
        if (conn && !closed) void conn.close();
      });
    return () => {
      closed = true;
      conn?.destroy();
    };
  });
}
