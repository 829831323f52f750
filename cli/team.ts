/**
 * `recall team init | push | pull | trust | status | history`: sharing learnings between machines
 * through a PostgreSQL team store. Library functions (they return reports; the CLI prints them).
 *
 * - init: connect, create or migrate the store's schema, remember the store (URL without its
 *   password) in `<state dir>/team/config.json`.
 * - push: publish the notes a KB shares (frontmatter `share: team`, or every note of a KB configured
 *   to share all), idempotent by id and content hash; retire in the store what the KB retired
 *   (superseded, archived, forgotten, no longer shared).
 * - pull: bring what changed since the last pull into the local fleet shard, page by page; each
 *   page is applied before the position is saved, so an interrupted pull resumes where it stopped.
 * - trust: mark an author trusted (or not) on this machine; notes already pulled follow at once.
 * - status: settings, last push and pull, local counts, and (with `probe`) the store's counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { loadConfig, type RecallConfig } from '../pipeline/config.js';
import { resolveScope } from '../pipeline/scope.js';
import { UsageError } from '../core/errors.js';
import { checkKbDir, openKbIndex } from '../pipeline/run.js';
import { createModelClient } from '../pipeline/model-client.js';
import { closeIndex, notesByPaths, refreshIndex, storedVectors, type IndexHandle } from '../sources/index-store.js';
import { fileMtimesOutside, notesOutside, supersedeLinksOutside } from '../sources/index-queries.js';
import { embedMissing } from '../sources/models/embed-notes.js';
import { parseLooseDate } from '../core/dates.js';
import type { Note } from '../core/note.js';
import { readJson, writeFileAtomic } from '../core/atomic-write.js';
import {
  TeamError,
  displayUrl,
  loadTeamSettings,
  readTeamConfig,
  redact,
  secretsOf,
  writeTeamConfig,
  type Env,
  type TeamSettings,
} from '../sources/team-settings.js';
import {
  AUTHORITIES,
  TEAM_PREFIX,
  applyToShard,
  clearShard,
  emptySummary,
  loadTrust,
  projectNote,
  recountShard,
  retrustShard,
  saveTrust,
  type Authority,
  type ShardSummary,
} from '../sources/team-shard.js';
import type { PullCursor, PushCounts, PushItem, RetireItem, StoreCounts, StoreInfo, TeamConnection } from '../sources/team-store.js';

export interface TeamIo {
  env: Env;
  cwd: string;
  /** Progress and diagnostics (stderr). */
  warn: (line: string) => void;
  progress?: (line: string) => void;
  now?: () => number;
}

/** Notes per push transaction (a few MB of SQL parameters at most). */
const PUSH_BATCH = 500;
/** Changed rows read per pull page; the pull position is saved after each page. */
export const PULL_PAGE = 1000;

function setup(io: TeamIo): { config: RecallConfig; settings: TeamSettings } {
  const config = loadConfig(io.env);
  const settings = loadTeamSettings(io.env, config.stateDir);
  for (const w of settings.warnings) io.warn(`recall: ${w}`);
  return { config, settings };
}

async function withStore<T>(
  settings: TeamSettings,
  fn: (conn: TeamConnection, store: typeof import('../sources/team-store.js')) => Promise<T>,
  opts: { connectTimeoutMs?: number } = {},
): Promise<T> {
  const store = await import('../sources/team-store.js');
  const conn = await store.openStore(settings, opts);
  try {
    return await fn(conn, store);
  } catch (err) {
    throw store.teamError(err, conn.secrets, 'team store');
  } finally {
    await conn.close();
  }
}

const nowIso = (io: TeamIo): string => new Date((io.now ?? Date.now)()).toISOString();

// ---------------------------------------------------------------------------------------------
// init

export interface InitOptions {
  url?: string;
  schema?: string;
  machine?: string;
  grant: string[];
  grantRead: string[];
  shareAll: string[];
}

export interface InitReport {
  store: string;
  schema: string;
  info: StoreInfo;
  applied: number[];
  pgvector: string;
  passwordNotSaved: boolean;
  config: string;
}

const ROLE_RE = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;

export async function teamInit(opts: InitOptions, io: TeamIo): Promise<InitReport> {
  const env = { ...io.env };
  if (opts.url) env['RECALL_TEAM_URL'] = opts.url;
  if (opts.schema) env['RECALL_TEAM_SCHEMA'] = opts.schema;
  const { settings } = setup({ ...io, env });
  if (opts.schema && settings.schema !== opts.schema)
    throw new UsageError(`--schema must be a plain lower-case identifier (got ${JSON.stringify(opts.schema)})`);
  for (const r of [...opts.grant, ...opts.grantRead])
    if (!ROLE_RE.test(r)) throw new UsageError(`--grant: ${JSON.stringify(r)} is not a role name`);
  if (!settings.url) throw new UsageError('no team store given: pass --url postgres://user@host:port/db (or set RECALL_TEAM_URL)');
  const result = await withStore(settings, (conn, store) => store.migrate(conn, { write: opts.grant, read: opts.grantRead }));
  // Remember the store for this machine, without the password (PGPASSWORD or ~/.pgpass give it).
  let saveUrl = settings.url;
  let passwordNotSaved = false;
  try {
    const u = new URL(settings.url);
    if (u.password) {
      u.password = '';
      saveUrl = u.toString();
      passwordNotSaved = true;
    }
  } catch {
    /* not a URL we can rewrite: parse errors were reported by the connection already */
  }
  const file = readTeamConfig(settings.paths);
  const shareAll = [...new Set([...(file.shareAll ?? []), ...opts.shareAll.map((d) => path.resolve(io.cwd, d))])];
  writeTeamConfig(settings.paths, {
    ...file,
    url: saveUrl,
    schema: settings.schema,
    ...(opts.machine ? { machine: opts.machine } : {}),
    ...(shareAll.length ? { shareAll } : {}),
  });
  return {
    store: displayUrl(settings.url, settings.env),
    schema: settings.schema,
    info: result,
    applied: result.applied,
    pgvector: result.pgvectorNote,
    passwordNotSaved,
    config: settings.paths.config,
  };
}

export function formatInit(r: InitReport): string {
  return (
    `team store ready: ${r.store} schema ${r.schema} (version ${r.info.version}${r.applied.length ? `, migrated: ${r.applied.join(', ')}` : ', up to date'}; store id ${r.info.storeId})\n` +
    `${r.pgvector}\n` +
    `settings saved in ${r.config}${r.passwordNotSaved ? ' (the password was not saved: give it with PGPASSWORD or ~/.pgpass)' : ''}\n`
  );
}

// ---------------------------------------------------------------------------------------------
// push

export interface PushOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
  /** Share every note of this KB (not only `share: team`). */
  all: boolean;
}

interface PushLedger {
  storeId: string;
  kb: string;
  /** Ids this KB has published, with the content hash last pushed. */
  ids: Record<string, string>;
  last?: PushReport;
}

export interface PushReport {
  at: string;
  kb: string;
  store: string;
  shared: number;
  counts: PushCounts;
  skipped: { path: string; reason: string }[];
  vectors: string;
  ms: number;
}

/** `share: team` (or a list holding `team`) shares a note; `share: private|none|false|no` keeps it home even when the KB shares all. */
export function shareMark(note: Pick<Note, 'frontmatter'>): 'team' | 'private' | null {
  const v = note.frontmatter['share'];
  const values = (Array.isArray(v) ? v : [v]).map((x) =>
    String(x ?? '')
      .trim()
      .toLowerCase(),
  );
  if (values.includes('team')) return 'team';
  if (values.some((x) => ['private', 'none', 'false', 'no'].includes(x))) return 'private';
  return null;
}

/** The note's edit time for conflict resolution: frontmatter `updated_at`/`updated`, else the file's mtime. */
function updatedAt(note: Note, mtimeMs: number | undefined): string {
  for (const k of ['updated_at', 'updated']) {
    const d = parseLooseDate(note.frontmatter[k]);
    if (d) return d.toISOString();
  }
  return new Date(mtimeMs ?? 0).toISOString();
}

function createdAt(note: Note): string | null {
  for (const k of ['created', 'date']) {
    const d = parseLooseDate(note.frontmatter[k]);
    if (d) return d.toISOString();
  }
  return null;
}

/** A note is followed across edits by its `id:` (or `name:`); a note without one has no stable identity. */
const hasOwnId = (note: Pick<Note, 'displayId'>): boolean => note.displayId !== '?';

const ledgerFile = (settings: TeamSettings, kbRoot: string): string => {
  let real = kbRoot;
  try {
    real = fs.realpathSync(kbRoot);
  } catch {
    /* keep as given */
  }
  return path.join(settings.paths.pushDir, `${createHash('sha1').update(real).digest('hex').slice(0, 16)}.json`);
};

/** What a push needs to decide about a note, without its text (a large KB is not held in memory whole). */
interface KbEntry {
  key: string;
  displayId: string;
  path: string;
  location: Note['location'];
  contentHash: string;
  supersededBy: string | null;
  status: string;
  share: 'team' | 'private' | null;
}

/** The KB's own notes from its index (the attached team shard excluded), read row by row. */
function kbEntries(index: IndexHandle): { entries: KbEntry[]; mtimes: Map<string, number>; supersedes: Map<string, string> } {
  const entries: KbEntry[] = [];
  for (const n of notesOutside(index, TEAM_PREFIX)) {
    entries.push({
      key: n.key,
      displayId: n.displayId,
      path: n.path,
      location: n.location,
      contentHash: n.contentHash,
      supersededBy: n.supersededBy,
      status: n.status,
      share: shareMark(n),
    });
  }
  const supersedes = new Map<string, string>();
  for (const r of supersedeLinksOutside(index, TEAM_PREFIX)) {
    if (r.target !== r.byKey && !supersedes.has(r.target)) supersedes.set(r.target, r.byKey);
  }
  return { entries, mtimes: fileMtimesOutside(index, TEAM_PREFIX), supersedes };
}

export async function teamPush(opts: PushOptions, io: TeamIo): Promise<PushReport> {
  const t0 = Date.now();
  const { config, settings } = setup(io);
  if (!settings.url)
    throw new TeamError('E_TEAM_NOT_CONFIGURED', 'no team store configured: set RECALL_TEAM_URL or run `recall team init --url URL`');
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const scope = resolveScope(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd });
  const kbRoot = scope.root;
  if (!fs.existsSync(path.join(kbRoot, 'documents'))) throw new TeamError('E_TEAM_NO_KB', `no KB at ${kbRoot} (no documents/ folder)`);
  let realKb = kbRoot;
  try {
    realKb = fs.realpathSync(kbRoot);
  } catch {
    /* checked above */
  }
  const shareAll =
    opts.all || settings.shareAllEnv || settings.shareAll.some((d) => path.resolve(d) === realKb || path.resolve(d) === kbRoot);
  const origin = { machine: settings.machine, kb: realKb };

  const index = openKbIndex(config, kbRoot, io.env);
  try {
    const refresh = refreshIndex(index, { problems: false });
    const skipped: PushReport['skipped'] = refresh.problems
      .filter((p) => !p.rel.startsWith(`${TEAM_PREFIX}/`))
      .map((p) => ({ path: p.rel, reason: p.message }));
    const { entries: notes, mtimes, supersedes } = kbEntries(index);

    // Note vectors go with the notes when an embedding model is installed.
    const models = createModelClient(config, io.env).client;
    let vectorModel: string | null = null;
    let vectors = 'no embedding model installed: notes pushed without vectors';
    if (models.models.embed) {
      try {
        await embedMissing(index, models, { max: Number.MAX_SAFE_INTEGER });
        vectorModel = models.models.embed;
        vectors = `vectors from ${vectorModel}`;
      } catch (err) {
        vectors = `notes pushed without vectors: ${(err as Error).message}`;
      }
    }

    const ledgerPath = ledgerFile(settings, kbRoot);
    return await withStore(settings, async (conn, store) => {
      const info = await store.storeInfo(conn);
      const prev = readJson<PushLedger | null>(ledgerPath, null);
      const ledger: PushLedger = prev && prev.storeId === info.storeId ? prev : { storeId: info.storeId, kb: realKb, ids: {} };
      const fromHere = await store.headsFrom(conn, origin);
      const known = (id: string): boolean => id in ledger.ids || fromHere.has(id);

      const live = notes.filter((n) => n.location === 'documents');
      const liveKeys = new Set(live.map((n) => n.key));
      const retiredCopies = new Map<string, 'superseded' | 'forgotten'>();
      for (const n of notes)
        if (n.location !== 'documents') retiredCopies.set(n.key, n.location === 'forgotten' ? 'forgotten' : 'superseded');

      const items: { entry: KbEntry; path: string }[] = [];
      const retires: RetireItem[] = [];
      let shared = 0;
      let unchangedHere = 0;
      const sharedIds = new Set<string>();
      for (const n of live) {
        const mark = n.share;
        const isShared = mark === 'team' || (shareAll && mark !== 'private');
        const retiredBy = n.supersededBy
          ? { state: 'superseded' as const, by: n.supersededBy }
          : n.status === 'superseded' || n.status === 'archived'
            ? { state: 'superseded' as const, by: null }
            : supersedes.has(n.key)
              ? { state: 'superseded' as const, by: supersedes.get(n.key)! }
              : retiredCopies.has(n.key)
                ? { state: retiredCopies.get(n.key)!, by: null }
                : null;
        if (retiredBy) {
          if (known(n.key) || isShared) retires.push({ id: n.key, state: retiredBy.state, supersededBy: retiredBy.by });
          continue;
        }
        if (!isShared) {
          // No longer shared (or never was): withdraw what this KB published before.
          if (known(n.key)) retires.push({ id: n.key, state: 'forgotten', supersededBy: null });
          continue;
        }
        if (!hasOwnId(n)) {
          skipped.push({
            path: n.path,
            reason: 'shared note without an `id:` (or `name:`) in its frontmatter; add one so edits and retirements can follow it',
          });
          continue;
        }
        shared += 1;
        sharedIds.add(n.key);
        // Pushed before with this very content and still this machine's latest in the store: nothing to send.
        if (ledger.ids[n.key] === n.contentHash && fromHere.get(n.key) === 'current') {
          unchangedHere += 1;
          continue;
        }
        items.push({ path: n.path, entry: n });
      }
      // Retired copies (archived/, documents/.forgotten/) of notes this KB published, and published notes gone from the KB.
      for (const [key, state] of retiredCopies) if (!liveKeys.has(key) && known(key)) retires.push({ id: key, state, supersededBy: null });
      const present = new Set([...liveKeys, ...retiredCopies.keys()]);
      for (const id of new Set([...Object.keys(ledger.ids), ...fromHere.keys()]))
        if (!present.has(id)) retires.push({ id, state: 'forgotten', supersededBy: null });
      // A shared note that declares `supersedes:` a note published elsewhere retires that note too.
      for (const [target, by] of supersedes)
        if (!present.has(target) && sharedIds.has(by)) retires.push({ id: target, state: 'superseded', supersededBy: by });

      const counts: PushCounts = { published: 0, unchanged: unchangedHere, keptAsRevision: 0, replacedOther: 0, retired: 0 };
      const total = items.length + retires.length;
      for (let i = 0; i < Math.max(items.length, retires.length); i += PUSH_BATCH) {
        const slice = items.slice(i, i + PUSH_BATCH);
        // The batch's notes, text included, read from the index now (not the whole KB at once).
        const full = notesByPaths(
          index,
          slice.map((b) => b.path),
        );
        const vecs = vectorModel
          ? storedVectors(
              index,
              vectorModel,
              slice.map((b) => b.path),
            )
          : new Map<string, number[]>();
        const batch: PushItem[] = slice.flatMap(({ path: p }) => {
          const n = full.get(p);
          if (!n) return [];
          return [
            {
              id: n.key,
              contentHash: n.contentHash,
              title: n.title,
              body: n.body,
              frontmatter: n.frontmatter,
              createdAt: createdAt(n),
              updatedAt: updatedAt(n, mtimes.get(p)),
              embedModel: vectorModel,
              embedding: vecs.get(p) ?? null,
            },
          ];
        });
        const c = await store.pushBatch(conn, origin, batch, retires.slice(i, i + PUSH_BATCH), info.pgvector);
        for (const k of Object.keys(counts) as (keyof PushCounts)[]) counts[k] += c[k];
        for (const b of batch) ledger.ids[b.id] = b.contentHash;
        io.progress?.(`pushed ${Math.min(total, i + PUSH_BATCH)}/${total}`);
      }
      for (const r of retires) delete ledger.ids[r.id];
      const report: PushReport = {
        at: nowIso(io),
        kb: realKb,
        store: displayUrl(settings.url, settings.env),
        shared,
        counts,
        skipped,
        vectors,
        ms: Date.now() - t0,
      };
      fs.mkdirSync(settings.paths.pushDir, { recursive: true, mode: 0o700 });
      writeFileAtomic(ledgerPath, JSON.stringify({ ...ledger, last: report }));
      return report;
    });
  } finally {
    closeIndex(index);
  }
}

export function formatPush(r: PushReport): string {
  const c = r.counts;
  const lines = [
    `pushed ${r.kb} to ${r.store}: ${r.shared} shared notes: ${c.published} published, ${c.unchanged} unchanged, ${c.retired} retired in the store` +
      ` (${(r.ms / 1000).toFixed(2)} s)`,
  ];
  if (c.keptAsRevision)
    lines.push(
      `conflicts: ${c.keptAsRevision} of your edits are older than the store's latest revision and were kept as superseded revisions (see \`recall team history ID\`)`,
    );
  if (c.replacedOther)
    lines.push(
      `conflicts: ${c.replacedOther} notes last published from another machine were replaced by your newer edit (their revision is kept as superseded)`,
    );
  lines.push(r.vectors);
  for (const s of r.skipped) lines.push(`skipped ${s.path}: ${s.reason}`);
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// pull

interface PullState {
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
  /** Notes larger than recall reads (1 MiB), not written. */
  tooLarge: number;
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

function readPullState(settings: TeamSettings): PullState | null {
  const s = readJson<PullState | null>(settings.paths.pull, null);
  return s && typeof s === 'object' && typeof s.storeId === 'string' && s.cursor ? s : null;
}

function savePullState(settings: TeamSettings, s: PullState): void {
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

export async function teamPull(opts: PullOptions, io: TeamIo): Promise<PullReport> {
  const t0 = Date.now();
  const { config, settings } = setup(io);
  if (!settings.url)
    throw new TeamError('E_TEAM_NOT_CONFIGURED', 'no team store configured: set RECALL_TEAM_URL or run `recall team init --url URL`');
  const release = takeLock(path.join(settings.paths.dir, 'pull.lock'));
  const shard = settings.paths.shard;
  const trust = loadTrust(settings.paths);
  let state: PullState | null = null;
  let applied = 0;
  const counts = { written: 0, removed: 0, unchanged: 0, 'too-large': 0 };
  try {
    const report = await withStore(settings, async (conn, store) => {
      const info = await store.storeInfo(conn);
      const prev = readPullState(settings);
      let full = opts.full === true || prev?.reproject === true;
      if (!prev || prev.storeId !== info.storeId) {
        // Another store (or the first pull): what the shard holds came from elsewhere.
        clearShard(shard);
        full = true;
      }
      state = {
        storeId: info.storeId,
        cursor: full || !prev || prev.storeId !== info.storeId ? store.START_CURSOR : prev.cursor,
        summary: prev && prev.storeId === info.storeId && !prev.inProgress ? prev.summary : recountShard(shard),
        inProgress: true,
        ...(prev?.last ? { last: prev.last } : {}),
      };
      savePullState(settings, state);
      fs.mkdirSync(shard, { recursive: true, mode: 0o700 });
      const at = nowIso(io);
      let rows = 0;
      const end = await store.pullChanges(conn, state.cursor, opts.pageSize ?? PULL_PAGE, async (page) => {
        for (const [id, revisions] of page.notes) {
          counts[applyToShard(shard, id, projectNote(revisions, trust, settings.machine), info.storeId, state!.summary, at)] += 1;
        }
        rows += page.rows;
        applied += page.notes.size;
        state = { ...state!, cursor: page.cursor };
        savePullState(settings, state);
        io.progress?.(`pulled ${rows} changes`);
        await opts.onPage?.(applied);
      });
      const report: PullReport = {
        at,
        store: displayUrl(settings.url, settings.env),
        full,
        rows,
        written: counts.written,
        removed: counts.removed,
        unchanged: counts.unchanged,
        tooLarge: counts['too-large'],
        summary: state.summary,
        ms: 0,
        indexed: null,
      };
      state = { storeId: info.storeId, cursor: end, summary: state.summary, inProgress: false, last: report };
      savePullState(settings, state);
      return report;
    });
    if (opts.index !== false) report.indexed = indexAfterPull(config, opts.kb ?? null, io);
    report.ms = Date.now() - t0;
    return report;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const st = state as PullState | null;
    // Failed before reading anything (no connection, no schema): say that, not "interrupted".
    if (!st) throw err;
    // The position saved is that of the last page applied in full; recount what the shard holds.
    savePullState(settings, { ...st, summary: recountShard(shard), inProgress: false, lastError: { at: nowIso(io), message } });
    const code = err instanceof TeamError ? err.code : 'E_TEAM';
    throw new TeamError(
      code,
      `pull interrupted after ${applied} notes (${message}); the shard keeps every page applied so far: run \`recall team pull\` again to continue`,
    );
  } finally {
    release();
  }
}

/** Refresh the index of the KB this directory resolves to, so the pulled notes are indexed before a hook needs them. */
function indexAfterPull(config: RecallConfig, kb: string | null, io: TeamIo): string | null {
  try {
    const scope = resolveScope(config, { kb, cwd: io.cwd });
    const index = openKbIndex(config, scope.root, io.env);
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

export function formatPull(r: PullReport): string {
  const s = r.summary;
  return (
    `pulled from ${r.store}${r.full ? ' (full)' : ''}: ${r.rows} changes, ${r.written} notes written, ${r.removed} removed, ${r.unchanged} unchanged` +
    `${r.tooLarge ? `, ${r.tooLarge} skipped (larger than 1 MiB)` : ''} (${(r.ms / 1000).toFixed(2)} s)\n` +
    `team shard: ${s.notes} notes, ${s.quarantined} quarantined (trust an author with \`recall team trust AUTHOR\`)\n` +
    (r.indexed ? `indexed with ${r.indexed}\n` : '')
  );
}

// ---------------------------------------------------------------------------------------------
// trust

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

export function formatTrust(r: ReturnType<typeof teamTrust>): string {
  if ('list' in r)
    return r.list.length
      ? r.list.map((t) => `${t.author}\t${t.authority}\tsince ${t.since}`).join('\n') + '\n'
      : 'no trusted authors: every pulled note is quarantined\n';
  return (
    `${r.trusted ? `trusted ${r.author} (authority ${r.authority})` : `no longer trusting ${r.author}`}: ${r.changed} pulled notes updated; ` +
    `team shard: ${r.summary.notes} notes, ${r.summary.quarantined} quarantined (the next pull re-reads the store for older revisions)\n`
  );
}

// ---------------------------------------------------------------------------------------------
// status

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
  lastPull: { at: string; rows: number; written: number; removed: number; full: boolean } | null;
  lastPullError: { at: string; message: string } | null;
  lastPush: { at: string; kb: string; shared: number; published: number; unchanged: number; retired: number; conflicts: number }[];
  /** Only when probed: the store as the server sees it, or why it could not be reached. */
  server?:
    | { reachable: true; storeId: string; schemaVersion: number; pgvector: boolean; counts: StoreCounts }
    | { reachable: false; error: string };
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
      ? { at: pull.last.at, rows: pull.last.rows, written: pull.last.written, removed: pull.last.removed, full: pull.last.full }
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
            pgvector: info.pgvector,
            counts: await store.storeCounts(conn),
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

export function formatStatus(s: TeamStatus): string {
  const lines = [
    `team store: ${s.configured ? `${s.store} (schema ${s.schema}, from ${s.source === 'env' ? 'RECALL_TEAM_URL' : 'the config file'})` : 'not configured (recall team init --url URL)'}`,
  ];
  lines.push(`this machine: ${s.machine}; live arm ${s.liveArm ? 'on (RECALL_TEAM_ARM=1)' : 'off'}`);
  const authors = Object.entries(s.shard.authors)
    .map(([a, n]) => `${a} ${n}`)
    .join(', ');
  lines.push(
    `pulled shard: ${s.shard.notes} notes, ${s.shard.quarantined} quarantined${authors ? ` (${authors})` : ''} in ${s.shard.root}`,
  );
  lines.push(
    `trusted: ${s.trusted.length ? s.trusted.map((t) => `${t.author} (${t.authority})`).join(', ') : 'nobody (every pulled note is quarantined)'}`,
  );
  lines.push(
    s.lastPull
      ? `last pull: ${s.lastPull.at}: ${s.lastPull.rows} changes, ${s.lastPull.written} written, ${s.lastPull.removed} removed`
      : 'last pull: never',
  );
  if (s.lastPullError) lines.push(`last pull error: ${s.lastPullError.at}: ${s.lastPullError.message}`);
  if (s.lastPush.length === 0) lines.push('last push: never');
  for (const p of s.lastPush)
    lines.push(
      `last push: ${p.at} from ${p.kb}: ${p.shared} shared, ${p.published} published, ${p.unchanged} unchanged, ${p.retired} retired, ${p.conflicts} conflicts`,
    );
  if (s.server) {
    if (s.server.reachable) {
      const c = s.server.counts;
      lines.push(
        `server: store ${s.server.storeId}, schema v${s.server.schemaVersion}, pgvector ${s.server.pgvector ? 'on' : 'off'}: ${c.current} current notes ` +
          `(${c.superseded} superseded, ${c.forgotten} forgotten, ${c.olderRevisions} older revisions kept, ${c.withVectors} with vectors); ` +
          `authors: ${
            Object.entries(c.authors)
              .map(([a, n]) => `${a} ${n}`)
              .join(', ') || 'none'
          }`,
      );
    } else {
      lines.push(`server: unreachable: ${s.server.error}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// history

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

// ---------------------------------------------------------------------------------------------
// command dispatch (yargs arguments → report text)

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);

export async function runTeamCommand(a: Record<string, unknown>, io: TeamIo): Promise<string> {
  const args = strings(a['args']);
  const scope = { kb: (a['kb'] as string | undefined) ?? null, global: a['global'] === true, allBranches: a['all-branches'] === true };
  switch (a['action']) {
    case 'init':
      return formatInit(
        await teamInit(
          {
            ...(a['url'] ? { url: String(a['url']) } : {}),
            ...(a['schema'] ? { schema: String(a['schema']) } : {}),
            ...(a['machine'] ? { machine: String(a['machine']) } : {}),
            grant: strings(a['grant']),
            grantRead: strings(a['grant-read']),
            shareAll: strings(a['share-all']),
          },
          io,
        ),
      );
    case 'push':
      return formatPush(await teamPush({ ...scope, all: a['all'] === true }, io));
    case 'pull':
      return formatPull(await teamPull({ full: a['full'] === true, index: a['index'] !== false, kb: scope.kb }, io));
    case 'trust':
      if (args.length > 1) throw new UsageError('trust takes one AUTHOR');
      return formatTrust(
        teamTrust(args[0] ?? null, { remove: a['remove'] === true, ...(a['authority'] ? { authority: String(a['authority']) } : {}) }, io),
      );
    case 'status': {
      const s = await teamStatus(io.env, { probe: a['probe'] !== false });
      return a['json'] === true ? `${JSON.stringify(s, null, 2)}\n` : formatStatus(s);
    }
    case 'history':
      if (args.length !== 1) throw new UsageError('history takes one note ID');
      return teamHistory(args[0]!, io);
    default:
      throw new UsageError(`unknown team action ${JSON.stringify(a['action'])}`);
  }
}
