/**
 * `recall team push`: publish the notes a KB shares (frontmatter `share: team`, or every note of a KB
 * configured to share all), idempotent by id and content hash, and retire in the store what the KB
 * retired (superseded, archived, forgotten, no longer shared). A ledger per KB remembers what was
 * pushed, so an unchanged note is not sent again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { RecallConfig } from '../config/index.js';
import { resolveScope } from '../scope.js';
import { checkKbDir, openKbIndex } from '../run.js';
import { createModelClient } from '../model-client.js';
import { closeIndex, embedMissing, notesByPaths, refreshIndex, storedVectors, type IndexHandle } from '../../sources/index/index.js';
import { parseLooseDate } from '../../core/dates.js';
import type { Note } from '../../core/note/index.js';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import {
  TeamError,
  displayUrl,
  publisherId,
  type TeamSettings,
  TEAM_PREFIX,
  type PushCounts,
  type PushItem,
  type PushOrigin,
  type StoreInfo,
  type TeamConnection,
} from '../../sources/team/index.js';
import { PUSH_BATCH, nowIso, setup, withStore, type TeamIo } from './io.js';
import { kbEntries, planPush, type KbEntries, type PushPlan } from './push-plan.js';

export { shareMark } from './push-plan.js';

export interface PushOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
  /** Share every note of this KB (not only `share: team`). */
  all: boolean;
}

export interface PushLedger {
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

const ledgerFile = (settings: TeamSettings, kbRoot: string): string => {
  let real = kbRoot;
  try {
    real = fs.realpathSync(kbRoot);
  } catch {
    /* keep as given */
  }
  return path.join(settings.paths.pushDir, `${createHash('sha1').update(real).digest('hex').slice(0, 16)}.json`);
};

/** The KB a push reads (it must have documents/), its real path, and whether it shares every note. */
function pushTarget(
  opts: PushOptions,
  io: TeamIo,
  config: RecallConfig,
  settings: TeamSettings,
): { kbRoot: string; realKb: string; shareAll: boolean } {
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const kbRoot = resolveScope(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd }).root;
  if (!fs.existsSync(path.join(kbRoot, 'documents'))) throw new TeamError('E_TEAM_NO_KB', `no KB at ${kbRoot} (no documents/ folder)`);
  let realKb = kbRoot;
  try {
    realKb = fs.realpathSync(kbRoot);
  } catch {
    /* checked above */
  }
  const shareAll =
    opts.all || settings.shareAllEnv || settings.shareAll.some((d) => path.resolve(d) === realKb || path.resolve(d) === kbRoot);
  return { kbRoot, realKb, shareAll };
}

/** Note vectors go with the notes when an embedding model is installed; the line says which, or why not. */
async function embedForPush(
  index: IndexHandle,
  config: RecallConfig,
  io: TeamIo,
): Promise<{ vectorModel: string | null; vectors: string }> {
  const models = createModelClient(config, io.env).client;
  if (!models.models.embed) return { vectorModel: null, vectors: 'no embedding model installed: notes pushed without vectors' };
  try {
    await embedMissing(index, models, { max: Number.MAX_SAFE_INTEGER });
    return { vectorModel: models.models.embed, vectors: `vectors from ${models.models.embed}` };
  } catch (err) {
    return { vectorModel: null, vectors: `notes pushed without vectors: ${(err as Error).message}` };
  }
}

interface SendContext {
  conn: TeamConnection;
  store: typeof import('../../sources/team/store.js');
  info: StoreInfo;
  index: IndexHandle;
  origin: PushOrigin;
  vectorModel: string | null;
  mtimes: KbEntries['mtimes'];
  /** Notes left out of this push, with the reason (the report lists them). */
  skipped: PushReport['skipped'];
}

/**
 * Where a note holds a character PostgreSQL text cannot store (NUL, U+0000), or null. Such a note
 * is skipped with this reason instead of failing its whole batch on the server.
 */
function unstorable(n: Note): string | null {
  const NUL = '\u0000';
  let inFrontmatter = false;
  JSON.stringify(n.frontmatter, (k: string, v: unknown) => {
    if (k.includes(NUL) || (typeof v === 'string' && v.includes(NUL))) inFrontmatter = true;
    return v;
  });
  const where = n.key.includes(NUL)
    ? 'id'
    : n.title.includes(NUL)
      ? 'title'
      : n.body.includes(NUL)
        ? 'text'
        : inFrontmatter
          ? 'frontmatter'
          : null;
  return where ? `its ${where} holds a NUL character (U+0000), which PostgreSQL text cannot store: remove it and push again` : null;
}

/** The store rows of one batch of notes, text and vectors read from the index now (not the whole KB at once). */
function batchItems(ctx: SendContext, paths: string[]): PushItem[] {
  const full = notesByPaths(ctx.index, paths);
  const vecs = ctx.vectorModel ? storedVectors(ctx.index, ctx.vectorModel, paths) : new Map<string, number[]>();
  return paths.flatMap((p) => {
    const n = full.get(p);
    if (!n) return [];
    const bad = unstorable(n);
    if (bad) {
      ctx.skipped.push({ path: p, reason: bad });
      return [];
    }
    const updated = updatedAt(n, ctx.mtimes.get(p));
    return [
      {
        id: n.key,
        contentHash: n.contentHash,
        title: n.title,
        body: n.body,
        frontmatter: n.frontmatter,
        createdAt: createdAt(n),
        updatedAt: updated,
        embedModel: ctx.vectorModel,
        embedding: vecs.get(p) ?? null,
      },
    ];
  });
}

/** Send the plan in batches, each its own transaction, recording every published note in the ledger as it goes. */
async function sendPlan(ctx: SendContext, plan: PushPlan, ledger: PushLedger, io: TeamIo): Promise<PushCounts> {
  const counts: PushCounts = { ...ctx.store.zeroCounts(), unchanged: plan.unchanged };
  const total = plan.items.length + plan.retires.length;
  for (let i = 0; i < Math.max(plan.items.length, plan.retires.length); i += PUSH_BATCH) {
    const paths = plan.items.slice(i, i + PUSH_BATCH).map((b) => b.path);
    const batch = batchItems(ctx, paths);
    const { counts: c, rejected } = await ctx.store.pushBatch(
      ctx.conn,
      ctx.origin,
      batch,
      plan.retires.slice(i, i + PUSH_BATCH),
      ctx.info.pgvector,
    );
    for (const k of Object.keys(counts) as (keyof PushCounts)[]) counts[k] += c[k];
    const refused = new Map(rejected.map((r) => [r.id, r.message]));
    for (const b of batch) if (!refused.has(b.id)) ledger.ids[b.id] = b.contentHash;
    // The store refused these values (the check above catches NUL; a server in another encoding may refuse more).
    for (const item of plan.items.slice(i, i + PUSH_BATCH))
      if (refused.has(item.entry.key))
        ctx.skipped.push({ path: item.path, reason: `the team store refused it: ${refused.get(item.entry.key)}` });
    io.progress?.(`pushed ${Math.min(total, i + PUSH_BATCH)}/${total}`);
  }
  for (const r of plan.retires) delete ledger.ids[r.id];
  return counts;
}

export async function teamPush(opts: PushOptions, io: TeamIo): Promise<PushReport> {
  const t0 = Date.now();
  const { config, settings } = setup(io);
  if (!settings.url)
    throw new TeamError('E_TEAM_NOT_CONFIGURED', 'no team store configured: set RECALL_TEAM_URL or run `recall team init --url URL`');
  const { kbRoot, realKb, shareAll } = pushTarget(opts, io, config, settings);
  const origin: PushOrigin = { machine: settings.machine, kb: realKb, publisher: publisherId(settings.paths, realKb) };
  const index = openKbIndex(config, kbRoot);
  try {
    const refresh = refreshIndex(index, { problems: false });
    const refreshSkipped = refresh.problems
      .filter((p) => !p.rel.startsWith(`${TEAM_PREFIX}/`))
      .map((p) => ({ path: p.rel, reason: p.message }));
    const kb = kbEntries(index);
    const { vectorModel, vectors } = await embedForPush(index, config, io);
    const ledgerPath = ledgerFile(settings, kbRoot);
    return await withStore(settings, async (conn, store) => {
      const info = await store.storeInfo(conn);
      const prev = readJson<PushLedger | null>(ledgerPath, null);
      const ledger: PushLedger = prev && prev.storeId === info.storeId ? prev : { storeId: info.storeId, kb: realKb, ids: {} };
      const plan = planPush(kb, shareAll, { pushed: ledger.ids, fromHere: await store.headsFrom(conn, origin) });
      const skipped: PushReport['skipped'] = [...refreshSkipped, ...plan.skipped];
      const counts = await sendPlan({ conn, store, info, index, origin, vectorModel, mtimes: kb.mtimes, skipped }, plan, ledger, io);
      const report: PushReport = {
        at: nowIso(io),
        kb: realKb,
        store: displayUrl(settings.url, settings.env),
        shared: plan.shared,
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
