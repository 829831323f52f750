/**
 * `npm run bench -- --team [--team-size N] [--runs R]`: load figures of the team store on a real
 * PostgreSQL server (RECALL_BENCH_PG_URL, a superuser URL, else a throwaway cluster started here):
 * push of N notes (default 100,000), an unchanged re-push, a full pull into another machine's shard,
 * an edit of 1% of the notes pushed and pulled incrementally, an empty incremental pull, and the live
 * arm's latency with N notes in the store. A script that prints figures, not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { lastValueFrom } from 'rxjs';
import pg from 'pg';
import { startCluster, type Cluster } from './pg-cluster.js';
import { openKbIndex, runIndex } from '../pipeline/run.js';
import { loadConfig } from '../pipeline/config/index.js';
import { closeIndex, refreshIndex } from '../sources/index/index.js';
import { teamInit, teamPull, teamPush, type TeamIo } from '../cli/team/index.js';
import { teamLiveArm } from '../sources/arms/index.js';
import { loadTeamSettings, openStore, searchStore } from '../sources/team/index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(repo, 'bin', 'recall');

export interface BenchTeamOptions {
  generateKb: (dir: string, n: number, sidecars?: boolean) => string[];
  size: number;
  runs: number;
  print: (...lines: string[]) => void;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

async function admin(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

interface Machine {
  state: string;
  kb: string;
  env: NodeJS.ProcessEnv;
  io: TeamIo;
}

/** One bench run's store: a fresh database with a writer and a reader role on the admin URL's server. */
interface Store {
  adminUrl: string;
  dbAdmin: URL;
  tag: string;
  role: (name: string) => string;
}

async function createStore(adminUrl: string): Promise<Store> {
  const tag = randomBytes(3).toString('hex');
  const db = `bench_${tag}`;
  await admin(adminUrl, `CREATE DATABASE ${db}`);
  for (const name of ['writer', 'reader']) await admin(adminUrl, `CREATE ROLE ${name}_${tag} LOGIN PASSWORD 'pw_${tag}'`);
  const role = (name: string): string => {
    const r = new URL(adminUrl);
    r.username = `${name}_${tag}`;
    r.password = `pw_${tag}`;
    r.pathname = `/${db}`;
    return r.toString();
  };
  const dbAdmin = new URL(adminUrl);
  dbAdmin.pathname = `/${db}`;
  return { adminUrl, dbAdmin, tag, role };
}

/** A teammate's machine: its own state dir, KB and team identity. */
function machine(tmp: string, store: Store, name: string): Machine {
  const state = path.join(tmp, `state-${name}`);
  const kb = path.join(tmp, `kb-${name}`);
  fs.mkdirSync(state, { recursive: true });
  const env = {
    ...process.env,
    HOME: state,
    REFLECT_STATE_DIR: state,
    RECALL_TEAM_URL: store.role(name),
    RECALL_TEAM_MACHINE: name,
    RECALL_TEAM_NOTES: '1',
  };
  const io: TeamIo = { env, cwd: tmp, warn: (l) => process.stderr.write(`${l}\n`) };
  return { state, kb, env, io };
}

/** What the first recall after a pull does: an incremental refresh of the KB's index, shard attached. */
function refreshReader(r: Machine): number {
  const s = performance.now();
  const h = openKbIndex(loadConfig(r.env), r.kb);
  try {
    refreshIndex(h, { problems: false });
  } finally {
    closeIndex(h);
  }
  return performance.now() - s;
}

async function timed<T>(f: () => Promise<T>): Promise<[T, string]> {
  const t0 = performance.now();
  const v = await f();
  return [v, secs(performance.now() - t0)];
}

/** Index the writer's KB, create the schema, push twice, pull everything into the reader's shard. */
async function firstPushAndPull(w: Machine, r: Machine, store: Store, n: number, print: (l: string) => void): Promise<void> {
  const [, built] = await timed(() =>
    runIndex({ kb: w.kb, global: false, allBranches: false }, { env: w.env, cwd: w.io.cwd, warn: () => undefined }),
  );
  print(`writer KB index build (before the first push)      ${built}`);
  await teamInit(
    { url: store.dbAdmin.toString(), grant: [`writer_${store.tag}`, `reader_${store.tag}`], grantRead: [], shareAll: [] },
    { ...w.io, env: { ...w.env, RECALL_TEAM_URL: '' } },
  );
  const push = (): ReturnType<typeof teamPush> => teamPush({ kb: w.kb, global: false, allBranches: false, all: true }, w.io);
  const [p1, t1] = await timed(push);
  print(`push ${n} notes (first)                          ${t1}  (${p1.counts.published} published)`);
  const [p2, t2] = await timed(push);
  print(`push again, nothing changed                       ${t2}  (${p2.counts.unchanged} unchanged)`);
  const [full, t3] = await timed(() => teamPull({ index: false }, r.io));
  print(`pull ${n} notes into an empty shard (full)       ${t3}  (${full.written} written)`);
  print(`index the reader's KB with the pulled shard       ${secs(refreshReader(r))}`);
}

/** Edit 1% of the notes (new text, later mtime), push and pull the change, then an empty pull. */
async function editsRoundTrip(w: Machine, r: Machine, n: number, print: (l: string) => void): Promise<void> {
  const docs = path.join(w.kb, 'documents');
  const names = fs
    .readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .slice(0, Math.max(1, Math.floor(n / 100)));
  const later = new Date(Date.now() + 60_000);
  for (const f of names) {
    fs.appendFileSync(path.join(docs, f), '\nEdited: the retry budget moved to the client constructor.\n');
    fs.utimesSync(path.join(docs, f), later, later);
  }
  const [p3, t1] = await timed(() => teamPush({ kb: w.kb, global: false, allBranches: false, all: true }, w.io));
  print(`push after editing ${names.length} notes                   ${t1}  (${p3.counts.published} published, KB re-read included)`);
  const [inc, t2] = await timed(() => teamPull({ index: false }, r.io));
  print(`incremental pull of those ${names.length} changes          ${t2}  (${inc.rows} changes read, ${inc.written} written)`);
  print(`  then the index refresh on the reader            ${secs(refreshReader(r))}`);
  const t0 = performance.now();
  const none = await teamPull({ index: false }, r.io);
  print(`incremental pull, nothing new                     ${(performance.now() - t0).toFixed(0)} ms  (${none.rows} changes)`);
}

/**
 * Live arm with N notes in the store: the query alone on an open connection, and the whole arm as a
 * recall runs it (connect, check the schema, search, shape the notes).
 */
async function liveArm(r: Machine, queries: string[], n: number, runs: number, print: (l: string) => void): Promise<void> {
  const settings = loadTeamSettings(r.env, r.state);
  const conn = await openStore(settings);
  const q: number[] = [];
  try {
    for (let i = 0; i < runs; i += 1) {
      const t0 = performance.now();
      await searchStore(conn, queries[i % queries.length]!, 20, 'reader');
      q.push(performance.now() - t0);
    }
  } finally {
    await conn.close();
  }
  const arm: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    await lastValueFrom(teamLiveArm(queries[(i + 7) % queries.length]!, 20, settings, 10_000), { defaultValue: [] });
    arm.push(performance.now() - t0);
  }
  const p = (xs: number[], at: number): string => pct(xs, at).toFixed(0);
  print(
    `live arm at ${n} notes: store query p50 / p95   ${p(q, 50)} / ${p(q, 95)} ms; whole arm (new connection) p50 / p95 ${p(arm, 50)} / ${p(arm, 95)} ms`,
  );
}

/** What the arm adds to a `bin/recall` (the reader's own small KB, shard not attached), and the shard's cost. */
function recallCosts(r: Machine, queries: string[], n: number, runs: number, print: (l: string) => void): void {
  const recallMs = (live: boolean, shard = false): number[] =>
    Array.from({ length: runs }, (_, i) => {
      const env = { ...r.env, RECALL_TEAM_NOTES: shard ? '1' : '0', ...(live ? { RECALL_TEAM_ARM: '1' } : {}) };
      const s = performance.now();
      const res = spawnSync(BIN, ['--kb', r.kb, queries[(i + 3) % queries.length]!, '--no-cache', '--format', 'json'], {
        env,
        encoding: 'utf8',
      });
      if (res.status !== 0) throw new Error(`recall failed: ${res.stderr}`);
      return performance.now() - s;
    });
  const off = recallMs(false);
  const on = recallMs(true);
  print(`bin/recall p50 without / with RECALL_TEAM_ARM=1   ${pct(off, 50).toFixed(0)} / ${pct(on, 50).toFixed(0)} ms`);
  // The other way to reach the team's notes: the pulled shard, indexed with the KB (every recall stats its files).
  const withShard = recallMs(false, true);
  print(`bin/recall p50 with the ${n}-note pulled shard     ${pct(withShard, 50).toFixed(0)} ms (index warm)`);
}

export async function benchTeam(opts: BenchTeamOptions): Promise<void> {
  const { size: n, runs, print } = opts;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-team-'));
  let cluster: Cluster | null = null;
  try {
    let adminUrl = process.env['RECALL_BENCH_PG_URL'] ?? '';
    if (!adminUrl) {
      cluster = await startCluster();
      adminUrl = cluster.url;
    }
    const u = new URL(adminUrl);
    const store = await createStore(adminUrl);
    const where = cluster ? 'throwaway cluster' : 'RECALL_BENCH_PG_URL';
    print(`team store: PostgreSQL at ${u.hostname}:${u.port} (${where}), ${n} notes, ${os.cpus().length} cores`);
    const w = machine(tmp, store, 'writer');
    const r = machine(tmp, store, 'reader');
    const queries = opts.generateKb(w.kb, n, false);
    fs.mkdirSync(path.join(r.kb, 'documents'), { recursive: true });
    fs.writeFileSync(path.join(r.kb, 'documents', 'own.md'), '---\nid: lrn-own\ntitle: reader own note about postgres\n---\nown\n');
    await firstPushAndPull(w, r, store, n, print);
    await editsRoundTrip(w, r, n, print);
    await liveArm(r, queries, n, runs, print);
    recallCosts(r, queries, n, runs, print);
    print(`peak RSS of this bench process                    ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
    print(`(${runs} runs per latency figure; data in ${tmp}, removed after)`);
  } finally {
    cluster?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
