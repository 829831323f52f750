/**
 * `recall team status`, `trust` and `history`: what this machine knows of the team store (settings,
 * last push and pull, the pulled shard, trusted authors), what the server says when asked, and the
 * revisions of one note.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { UsageError } from '../../core/errors.js';
import { readJson } from '../../io/atomic-write.js';
import {
  displayUrl,
  loadTeamSettings,
  redact,
  secretsOf,
  type Env,
  type TeamSettings,
  AUTHORITIES,
  emptySummary,
  loadTrust,
  recountShard,
  retrustShard,
  saveTrust,
  type Authority,
  type ShardSummary,
  type Stall,
  type StoreCounts,
} from '../../sources/team/index.js';
import { nowIso, setup, withStore, type TeamIo } from './io.js';
import { readPullState, savePullState } from './pull.js';
import type { PushLedger } from './push.js';

export interface TrustReport {
  author: string;
  trusted: boolean;
  authority: Authority | null;
  changed: number;
  summary: ShardSummary;
  authors: TeamStatus['trusted'];
}

export function teamTrust(
  author: string | null,
  opts: { remove: boolean; authority?: string },
  io: TeamIo,
): TrustReport | { list: TeamStatus['trusted'] } {
  const { settings } = setup(io);
  const trust = loadTrust(settings.paths);
  const list = (): TeamStatus['trusted'] =>
    Object.entries(trust.authors).map(([name, v]) => ({ author: name, authority: v.authority, since: v.since }));
  if (author === null) return { list: list() };
  if (!/^[^\s\p{C}]{1,128}$/u.test(author)) throw new UsageError(`AUTHOR must be a database role name (got ${JSON.stringify(author)})`);
  const authority = (opts.authority ?? 'advisory').toLowerCase();
  if (!AUTHORITIES.includes(authority as Authority))
    throw new UsageError(`--authority must be one of ${AUTHORITIES.join(', ')} (got ${JSON.stringify(opts.authority)})`);
  if (opts.remove) delete trust.authors[author];
  else trust.authors[author] = { authority: authority as Authority, since: nowIso(io) };
  saveTrust(settings.paths, trust);
  const { changed, summary } = retrustShard(settings.paths.shard, trust, nowIso(io));
  const prev = readPullState(settings);
  if (prev) savePullState(settings, { ...prev, summary, reproject: true });
  return { author, trusted: !opts.remove, authority: opts.remove ? null : (authority as Authority), changed, summary, authors: list() };
}

export interface TeamStatus {
  configured: boolean;
  /** The store's URL without its password. */
  store: string;
  source: TeamSettings['source'];
  schema: string;
  machine: string;
  liveArm: boolean;
  shard: { root: string; notes: number; quarantined: number; authors: Record<string, number> };
  trusted: { author: string; authority: Authority; since: string }[];
  /** `refused`: retirements the last pull did not take (by roles neither the note's author nor trusted). */
  lastPull: { at: string; rows: number; written: number; removed: number; refused: number; full: boolean; stalled: Stall | null } | null;
  lastPullError: { at: string; message: string } | null;
  lastPush: { at: string; kb: string; shared: number; published: number; unchanged: number; retired: number; conflicts: number }[];
  /** Only when probed: the store as the server sees it, or why it could not be reached. */
  server?:
    | {
        reachable: true;
        storeId: string;
        schemaVersion: number;
        /** The schema version this recall migrates a store to (`recall team init`). */
        latestSchema: number;
        pgvector: boolean;
        counts: StoreCounts;
        /** A transaction open in the store that holds back changes committed after it (every pull sees none of them). */
        stalled: Stall | null;
      }
    | { reachable: false; error: string };
}

/** The last push of every KB pushed from this machine, newest first (from the push ledgers). */
function lastPushes(settings: TeamSettings): TeamStatus['lastPush'] {
  const pushes: TeamStatus['lastPush'] = [];
  try {
    for (const f of fs.readdirSync(settings.paths.pushDir)) {
      const l = readJson<PushLedger | null>(path.join(settings.paths.pushDir, f), null);
      if (l?.last) {
        const c = l.last.counts;
        pushes.push({
          at: l.last.at,
          kb: l.kb,
          shared: l.last.shared,
          published: c.published,
          unchanged: c.unchanged,
          retired: c.retired,
          conflicts: c.keptAsRevision + c.replacedOther,
        });
      }
    }
  } catch {
    /* nothing pushed from here */
  }
  pushes.sort((a, b) => (a.at < b.at ? 1 : -1));
  return pushes;
}

/**
 * The team store's status for `recall team status` and `recall status`: local facts only (settings,
 * last push and pull, counts of the pulled shard) unless `probe` is set, which also asks the server
 * (under `probeTimeoutMs`, 3 s by default). Never throws for a store problem; never shows the password.
 */
export async function teamStatus(env: Env, opts: { probe?: boolean; probeTimeoutMs?: number } = {}): Promise<TeamStatus> {
  const config = loadConfig(env);
  const settings = loadTeamSettings(env, config.stateDir);
  const trust = loadTrust(settings.paths);
  const pull = readPullState(settings);
  const summary =
    pull && !pull.inProgress ? pull.summary : fs.existsSync(settings.paths.shard) ? recountShard(settings.paths.shard) : emptySummary();
  const pushes = lastPushes(settings);
  const status: TeamStatus = {
    configured: settings.url !== null,
    store: displayUrl(settings.url, settings.env),
    source: settings.source,
    schema: settings.schema,
    machine: settings.machine,
    liveArm: settings.liveArm,
    shard: { root: settings.paths.shard, notes: summary.notes, quarantined: summary.quarantined, authors: summary.authors },
    trusted: Object.entries(trust.authors).map(([author, v]) => ({ author, authority: v.authority, since: v.since })),
    lastPull: pull?.last
      ? {
          at: pull.last.at,
          rows: pull.last.rows,
          written: pull.last.written,
          removed: pull.last.removed,
          // A pull state saved by an earlier recall has no refusals recorded.
          refused: Object.values(pull.last.refused ?? {}).reduce((a, b) => a + b, 0),
          full: pull.last.full,
          // Absent from a pull state saved by an earlier recall.
          stalled: pull.last.stalled ?? null,
        }
      : null,
    lastPullError: pull?.lastError ?? null,
    lastPush: pushes,
  };
  if (opts.probe && settings.url) {
    try {
      status.server = await withStore(
        settings,
        async (conn, store) => {
          const info = await store.storeInfo(conn);
          return {
            reachable: true as const,
            storeId: info.storeId,
            schemaVersion: info.version,
            latestSchema: store.STORE_SCHEMA_VERSION,
            pgvector: info.pgvector,
            counts: await store.storeCounts(conn),
            stalled: await store.storeStall(conn),
          };
        },
        { connectTimeoutMs: opts.probeTimeoutMs ?? 3000 },
      );
    } catch (err) {
      status.server = { reachable: false, error: redact(err instanceof Error ? err.message : String(err), secretsOf(settings)) };
    }
  }
  return status;
}

export async function teamHistory(id: string, io: TeamIo): Promise<string> {
  const { settings } = setup(io);
  const rows = await withStore(settings, async (conn, store) => {
    await store.storeInfo(conn);
    return store.noteHistory(conn, id);
  });
  if (rows.length === 0) return `${id}: not in the team store\n`;
  return (
    rows
      .map(
        (r) =>
          `r${r.revision}\t${r.head ? 'latest' : 'older'}\t${r.state}${r.supersededBy && r.supersededBy !== r.id ? ` by ${r.supersededBy}` : ''}\t` +
          `${r.author}@${r.machine}\tupdated ${r.updatedAt}\tpublished ${r.publishedAt}\t${r.contentHash.slice(0, 12)}\t${r.title}`,
      )
      .join('\n') + '\n'
  );
}
