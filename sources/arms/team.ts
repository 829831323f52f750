/**
 * The live team arm (RECALL_TEAM_ARM=1): the team store searched during a recall, as one more
 * arm under its own timeout (RECALL_TEAM_TIMEOUT, 2 s by default). Full-text search on the
 * server (an OR of the query's words, ranked by ts_rank_cd over the weighted title / insight /
 * fields / body vector) over the latest revision of each note published from other machines,
 * fused with note-vector similarity when an embedding model is installed here and the publishers
 * stored vectors of the same model (see searchStore).
 *
 * Each hit is shaped like a pulled note (same trust rules, same author and quarantine), so a note
 * found both live and in the pulled shard fuses into one candidate. A connection failure, a query
 * error or a timeout gives nothing (the arm's outcome says why, password removed); on timeout or
 * when the recall no longer needs it, the connection is dropped at once. `pg` is loaded only
 * when this arm runs.
 */
import { Observable, firstValueFrom, timeout } from 'rxjs';
import type { ModelClient } from '../../core/ports.js';
import { parseNote } from '../../core/note/index.js';
import type { ArmHit } from '../../core/types.js';
import { loadTrust, projectNote, renderPulledNote, shardFileName, teamKey, type TeamSettings, type TeamConnection } from '../team/index.js';

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
      const info = await store.storeInfo(conn);
      const found = await store.searchStore(conn, query, limit, settings.machine, vec ? { ...vec, pgvector: info.pgvector } : null);
      const trust = loadTrust(settings.paths);
      const now = new Date().toISOString();
      const hits: ArmHit[] = [];
      for (const { row, score } of found) {
        const projection = projectNote([row], trust);
        if (!projection) continue;
        const { text, provenance } = renderPulledNote(projection, info.storeId, now);
        const note = parseNote(text, `${TEAM_LIVE_PREFIX}/documents/${shardFileName(row.id)}`, 'documents');
        hits.push({
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
              store: info.storeId,
              revision: row.revision,
              verified: true,
            },
          },
          score,
        });
      }
      subscriber.next(hits);
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
