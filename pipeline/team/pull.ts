/**
 * `recall team pull`: bring what changed in the store since the last pull into the local team shard,
 * page by page. Each page is applied before the position is saved, so an interrupted pull resumes
 * where it stopped; one pull runs at a time per state dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RecallConfig } from '../config/index.js';
import { resolveScope } from '../scope.js';
import { openKbIndex } from '../run.js';
import { closeIndex, refreshIndex } from '../../sources/index/index.js';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import {
  TeamError,
  displayUrl,
  type TeamSettings,
  applyToShard,
  clearShard,
  isTrusted,
  loadTrust,
  recountShard,
  type Projection,
  type ShardSummary,
  type PullCursor,
  type Stall,
  type TeamConnection,
} from '../../sources/team/index.js';
import { PULL_PAGE, nowIso, setup, withStore, type TeamIo } from './io.js';

/** Notes over the size cap a pull names (the rest are counted). */
const TOO_LARGE_NAMED = 5;

export interface PullState {
  storeId: string;
  cursor: PullCursor;
  summary: ShardSummary;
  /** Set while a pull runs: a pull that died leaves it, and the next one recounts the shard. */
  inProgress: boolean;
  /** Trust changed since the last pull: the next pull re-reads the whole store. */
  reproject?: boolean;
  last?: PullReport;
  lastError?: { at: string; message: string };
}

export interface PullReport {
  at: string;
  store: string;
  full: boolean;
  rows: number;
  written: number;
  removed: number;
  unchanged: number;
  /** Notes larger than recall reads (1 MiB), not written (their content is never read from the store). */
  tooLarge: number;
  /** The ids of the first of them (TOO_LARGE_NAMED at most), to say which. */
  tooLargeIds: string[];
  /**
   * A transaction open in the store since before this pull, holding back changes committed after
   * it began (they arrive with the first pull after it ends), or null.
   */
  stalled: Stall | null;
  /** Notes not written because every revision was retired by its author or a trusted teammate (none was in the shard). */
  retired: number;
  /**
   * Notes kept although the store marks the kept revision retired or not the latest, because a
   * role not trusted here did it (not its author): by that role.
   */
  refused: Record<string, number>;
  /** Notes shown at a trusted author's revision while a newer one by an untrusted author is held back. */
  heldBack: number;
  /** Notes published by this state dir's KBs: in the shard for the other KBs, left out of the one that published them. */
  local: number;
  /** The database role this pull ran as, and whether this machine trusts it (its notes in the other KBs are quarantined otherwise). */
  role: string;
  roleTrusted: boolean;
  summary: ShardSummary;
  ms: number;
  indexed: string | null;
}

export interface PullOptions {
  /** Re-read the whole store (not only what changed). */
  full?: boolean;
  pageSize?: number;
  /** Refresh the current KB's index afterwards, so the next hook finds the notes indexed (default true). */
  index?: boolean;
  kb?: string | null;
  /** Called after each applied page (tests stop the server here). */
  onPage?: (applied: number) => void | Promise<void>;
}

export function readPullState(settings: TeamSettings): PullState | null {
  const s = readJson<PullState | null>(settings.paths.pull, null);
  return s && typeof s === 'object' && typeof s.storeId === 'string' && s.cursor ? s : null;
}

export function savePullState(settings: TeamSettings, s: PullState): void {
  fs.mkdirSync(settings.paths.dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(settings.paths.pull, JSON.stringify(s));
}

/** One pull at a time per state dir: a lock file holding the pid, taken over when that process is gone. */
function takeLock(file: string): () => void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      let alive = false;
      try {
        if (pid > 0) {
          process.kill(pid, 0);
          alive = true;
        }
      } catch {
        alive = false;
      }
      if (alive) throw new TeamError('E_TEAM_BUSY', `another team pull (pid ${pid}) is running on this machine`);
      fs.rmSync(file, { force: true });
    }
  }
  throw new TeamError('E_TEAM_BUSY', 'cannot take the team pull lock');
}

/** A pull in progress: the saved state (null until the store was reached), notes applied and per-outcome counts. */
interface PullRun {
  state: PullState | null;
  applied: number;
  counts: { written: number; removed: number; unchanged: number; 'too-large': number; retired: number };
  tooLargeIds: string[];
  refused: Record<string, number>;
  heldBack: number;
  local: number;
}

type TeamStore = typeof import('../../sources/team/store.js');

/** Where this pull starts: the saved position, or from scratch (another store, a first pull, `--full`, a trust change). */
function startState(settings: TeamSettings, store: TeamStore, storeId: string, full: boolean): { state: PullState; full: boolean } {
  const prev = readPullState(settings);
  const shard = settings.paths.shard;
  let fromScratch = full || prev?.reproject === true;
  if (!prev || prev.storeId !== storeId) {
    // Another store (or the first pull): what the shard holds came from elsewhere.
    clearShard(shard);
    fromScratch = true;
  }
  const state: PullState = {
    storeId,
    cursor: fromScratch || !prev || prev.storeId !== storeId ? store.START_CURSOR : prev.cursor,
    summary: prev && prev.storeId === storeId && !prev.inProgress ? prev.summary : recountShard(shard),
    inProgress: true,
    ...(prev?.last ? { last: prev.last } : {}),
  };
  return { state, full: fromScratch };
}

/** Make the shard show `projection` for note `id`, counting the outcome and why (refused, held back, local). */
function applyNote(run: PullRun, shard: string, id: string, projection: Projection | null, storeId: string, at: string): void {
  const outcome = applyToShard(shard, id, projection, storeId, run.state!.summary, at);
  // Nothing to remove and nothing to show: every revision was retired by someone whose word we take.
  run.counts[!projection && outcome === 'unchanged' ? 'retired' : outcome] += 1;
  if (outcome === 'too-large' && run.tooLargeIds.length < TOO_LARGE_NAMED) run.tooLargeIds.push(id);
  if (projection?.refused) run.refused[projection.refused.by] = (run.refused[projection.refused.by] ?? 0) + 1;
  if (projection?.heldBack) run.heldBack += 1;
  if (projection?.localKb) run.local += 1;
}

/** Read and apply every changed page, saving the position after each; the report of what was done. */
async function pullPages(
  conn: TeamConnection,
  store: TeamStore,
  run: PullRun,
  opts: PullOptions,
  io: TeamIo,
  settings: TeamSettings,
): Promise<PullReport> {
  const shard = settings.paths.shard;
  const trust = loadTrust(settings.paths);
  const info = await store.storeInfo(conn);
  // The same choice of revision the live arm makes (sources/team/revisions.ts).
  const { choose, local } = await store.chooser(conn, settings);
  const start = startState(settings, store, info.storeId, opts.full === true);
  run.state = start.state;
  savePullState(settings, run.state);
  fs.mkdirSync(shard, { recursive: true, mode: 0o700 });
  const at = nowIso(io);
  let rows = 0;
  const role = local.role;
  const end = await store.pullChanges(conn, run.state.cursor, opts.pageSize ?? PULL_PAGE, choose, async (page) => {
    for (const [id, projection] of page.notes) applyNote(run, shard, id, projection, info.storeId, at);
    run.applied += page.notes.size;
    // Only a page's last part moves the position: the parts before it are applied again on a resume.
    if (!page.cursor) return;
    rows += page.rows;
    run.state = { ...run.state!, cursor: page.cursor };
    savePullState(settings, run.state);
    io.progress?.(`pulled ${rows} changes`);
    await opts.onPage?.(run.applied);
  });
  const { counts } = run;
  const report: PullReport = {
    at,
    store: displayUrl(settings.url, settings.env),
    full: start.full,
    rows,
    written: counts.written,
    removed: counts.removed,
    unchanged: counts.unchanged,
    tooLarge: counts['too-large'],
    tooLargeIds: run.tooLargeIds,
    stalled: end.stalled,
    retired: counts.retired,
    refused: run.refused,
    heldBack: run.heldBack,
    local: run.local,
    role,
    roleTrusted: isTrusted(trust, role),
    summary: run.state.summary,
    ms: 0,
    indexed: null,
  };
  run.state = { storeId: info.storeId, cursor: end.cursor, summary: run.state.summary, inProgress: false, last: report };
  savePullState(settings, run.state);
  return report;
}

/** A pull that failed part way: keep the position of the last page applied in full, recount the shard, say how to resume. */
function interrupted(err: unknown, run: PullRun, settings: TeamSettings, io: TeamIo): Error {
  const message = err instanceof Error ? err.message : String(err);
  // Failed before reading anything (no connection, no schema): say that, not "interrupted".
  if (!run.state) return err as Error;
  savePullState(settings, {
    ...run.state,
    summary: recountShard(settings.paths.shard),
    inProgress: false,
    lastError: { at: nowIso(io), message },
  });
  const code = err instanceof TeamError ? err.code : 'E_TEAM';
  return new TeamError(
    code,
    `pull interrupted after ${run.applied} notes (${message}); the shard keeps every page applied so far: run \`recall team pull\` again to continue`,
  );
}

export async function teamPull(opts: PullOptions, io: TeamIo): Promise<PullReport> {
  const t0 = Date.now();
  const { config, settings } = setup(io);
  if (!settings.url)
    throw new TeamError('E_TEAM_NOT_CONFIGURED', 'no team store configured: set RECALL_TEAM_URL or run `recall team init --url URL`');
  const release = takeLock(path.join(settings.paths.dir, 'pull.lock'));
  const run: PullRun = {
    state: null,
    applied: 0,
    counts: { written: 0, removed: 0, unchanged: 0, 'too-large': 0, retired: 0 },
    tooLargeIds: [],
    refused: {},
    heldBack: 0,
    local: 0,
  };
  try {
    const report = await withStore(settings, (conn, store) => pullPages(conn, store, run, opts, io, settings));
    if (opts.index !== false) report.indexed = indexAfterPull(config, opts.kb ?? null, io);
    report.ms = Date.now() - t0;
    return report;
  } catch (err) {
    throw interrupted(err, run, settings, io);
  } finally {
    release();
  }
}

/** Refresh the index of the KB this directory resolves to, so the pulled notes are indexed before a hook needs them. */
function indexAfterPull(config: RecallConfig, kb: string | null, io: TeamIo): string | null {
  try {
    const scope = resolveScope(config, { kb, cwd: io.cwd });
    const index = openKbIndex(config, scope.root);
    try {
      refreshIndex(index, { problems: false });
      return scope.root;
    } finally {
      closeIndex(index);
    }
  } catch (err) {
    io.warn(`recall: indexing after the pull failed: ${(err as Error).message}`);
    return null;
  }
}
