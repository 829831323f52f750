/**
 * The team store against a real PostgreSQL server: two KBs standing for two machines push, a third
 * machine pulls and recalls their notes with provenance; supersede and forget propagate; conflicting
 * edits keep both revisions; trust decides quarantine and authority; a server that stops mid-pull
 * leaves the shard consistent; the live arm degrades within its timeout; the password never shows.
 *
 * The server is the one .ci/run started (RECALL_TEST_PG_URL) or a throwaway cluster started here;
 * without PostgreSQL server binaries the suite is skipped with the reason.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testPg, freshTeam, adminQuery, type TestPg } from '../helpers/pg.js';
import { findPgBin, startCluster, type Cluster } from '../../scripts/pg-cluster.js';
import { teamInit, teamPull, teamPush, teamStatus, teamTrust, teamHistory, formatStatus } from '../../cli/team.js';
import { DEFAULT_COMMAND, runRecall, type RecallCommand } from '../../pipeline/run.js';
import { runHook } from '../../hooks/runtime.js';
import { HOOKS } from '../../hooks/registry.js';
import { provenancePath } from '../../sources/team-shard.js';
import { noteText } from '../helpers/kb.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(repo, 'bin', 'recall');

const pgOrSkip = await testPg();
if ('skip' in pgOrSkip) {
  // The one case where these tests do not run: no server could be started here.
  console.warn(`team store tests SKIPPED: no PostgreSQL server: ${pgOrSkip.skip}`);
}
const suite = 'skip' in pgOrSkip ? describe.skip : describe;
const server = 'skip' in pgOrSkip ? null : (pgOrSkip as TestPg);

interface Machine {
  name: string;
  kb: string;
  state: string;
  env: Record<string, string>;
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-'));
let team: Awaited<ReturnType<typeof freshTeam>>;
const secrets: string[] = [];

function machine(name: string, roleUrl: string, extra: Record<string, string> = {}): Machine {
  const kb = path.join(base, name, 'kb');
  const state = path.join(base, name, 'state');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  return {
    name,
    kb,
    state,
    env: { HOME: state, REFLECT_STATE_DIR: state, REFLECT_METRICS_PATH: path.join(state, 'metrics.jsonl'), RECALL_TEAM_URL: roleUrl, RECALL_TEAM_MACHINE: name, PATH: process.env['PATH'] ?? '', ...extra },
  };
}

const write = (m: Machine, rel: string, text: string): void => {
  const abs = path.join(m.kb, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
};

const io = (m: Machine, env: Record<string, string> = {}) => ({ env: { ...m.env, ...env }, cwd: m.kb, warn: () => undefined });
const push = (m: Machine, opts: { all?: boolean } = {}) => teamPush({ kb: m.kb, global: false, allBranches: false, all: opts.all === true }, io(m));
const pull = (m: Machine, opts: Parameters<typeof teamPull>[0] = {}) => teamPull({ kb: m.kb, ...opts }, io(m));

async function recall(m: Machine, query: string, cmd: Partial<RecallCommand> = {}, env: Record<string, string> = {}) {
  const r = await runRecall({ ...DEFAULT_COMMAND, format: 'json', cache: false, kb: m.kb, ...cmd, query }, { ...io(m, env), warn: () => undefined });
  return { ids: (r.outcome?.results ?? []).map((c) => c.note.displayId), outcome: r.outcome, stdout: r.stdout };
}

/** Every text file under a folder, concatenated (to search the state dir for secrets). */
function allText(dir: string): string {
  let out = '';
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.statSync(p).size < 5_000_000) out += fs.readFileSync(p).toString('latin1');
    }
  };
  walk(dir);
  return out;
}

const shared = (id: string, title: string, body: string, extra: Record<string, unknown> = {}): string => noteText(id, title, body, { share: 'team', ...extra });

let alice: Machine;
let bob: Machine;
let carol: Machine;

suite('team store on PostgreSQL', () => {
  beforeAll(async () => {
    team = await freshTeam(server!, ['alice', 'bob', 'carol']);
    for (const r of Object.values(team.roles)) secrets.push(r.password);
    alice = machine('alice-laptop', team.roles['alice']!.url);
    bob = machine('bob-desktop', team.roles['bob']!.url);
    carol = machine('carol-laptop', team.roles['carol']!.url);
    // The store owner creates the schema and lets the three roles push and pull.
    const init = await teamInit({ url: team.dbUrl, grant: Object.values(team.roles).map((r) => r.name), grantRead: [], shareAll: [] }, { env: { ...alice.env, RECALL_TEAM_URL: '' }, cwd: alice.kb, warn: () => undefined });
    expect(init.applied).toEqual([1, 2]);
  }, 60_000);

  afterAll(async () => {
    fs.rmSync(base, { recursive: true, force: true });
    server?.cluster?.stop();
  });

  it('init is idempotent, versioned, and saves the store without its password', async () => {
    const again = await teamInit({ url: team.dbUrl, grant: [], grantRead: [], shareAll: [] }, { env: { ...alice.env, RECALL_TEAM_URL: '' }, cwd: alice.kb, warn: () => undefined });
    expect(again.applied).toEqual([]);
    expect(again.info.version).toBe(2);
    const saved = fs.readFileSync(path.join(alice.state, 'team', 'config.json'), 'utf8');
    expect(saved).toContain('/team_');
    expect(saved).not.toContain(new URL(team.dbUrl).password);
    const meta = await adminQuery(team.dbUrl, `SELECT v FROM recall.meta WHERE k = 'schema_version'`);
    expect(meta.rows[0].v).toBe('2');
    // A teammate's role (no CREATE right on the database) can run init too: it finds the store up to date.
    const mine = await teamInit({ grant: [], grantRead: [], shareAll: [] }, io(bob));
    expect(mine.applied).toEqual([]);
    expect(fs.readFileSync(path.join(bob.state, 'team', 'config.json'), 'utf8')).not.toContain(team.roles['bob']!.password);
  });

  it('init migrates a store of an older schema version in place, keeping its notes', async () => {
    const { openStore, migrate, pushBatch, searchStore, storeInfo } = await import('../../sources/team-store.js');
    const { loadTeamSettings } = await import('../../sources/team-settings.js');
    const env = { ...alice.env, RECALL_TEAM_URL: team.dbUrl, RECALL_TEAM_SCHEMA: 'oldteam' };
    const conn = await openStore(loadTeamSettings(env, alice.state));
    try {
      expect((await migrate(conn, { write: [], read: [] }, 1)).applied).toEqual([1]);
      await expect(storeInfo(conn)).rejects.toThrow(/version 1: run `recall team init` to migrate it to 2/);
      await pushBatch(conn, { machine: 'old-box', kb: '/old' }, [
        { id: 'lrn-old', contentHash: 'h', title: 'terraform state lock stuck', body: 'force-unlock', frontmatter: {}, createdAt: null, updatedAt: '2026-01-01T00:00:00Z', embedModel: null, embedding: null },
      ], [], false);
    } finally {
      await conn.close();
    }
    const up = await teamInit({ grant: [], grantRead: [], shareAll: [] }, { env, cwd: alice.kb, warn: () => undefined });
    expect(up.applied).toEqual([2]);
    const again = await openStore(loadTeamSettings(env, alice.state));
    try {
      expect((await storeInfo(again)).version).toBe(2);
      expect((await searchStore(again, 'terraform lock', 5, 'elsewhere')).map((h) => h.row.id)).toEqual(['lrn-old']);
    } finally {
      await again.close();
    }
    // init saved this schema in alice's config: put hers back.
    await teamInit({ grant: [], grantRead: [], shareAll: [] }, io(alice, { RECALL_TEAM_SCHEMA: 'recall' }));
  });

  it('two machines push; a third pulls and recalls their notes next to its own, with authors and quarantine', async () => {
    write(alice, 'documents/pool.md', shared('lrn-pool', 'postgres connection pool exhausted in jest', 'close the pool in afterAll so jest exits'));
    write(alice, 'documents/secret.md', noteText('lrn-alice-private', 'postgres pool private tuning notes', 'not for the team'));
    write(bob, 'documents/redis.md', shared('lrn-redis', 'redis eviction drops postgres session cache keys', 'use volatile-lru', { authority: 'law', quarantine: false }));
    write(carol, 'documents/own.md', noteText('lrn-carol-own', 'postgres session cache and pool sizing per worker', 'size the session cache and the pool per worker'));

    const pa = await push(alice);
    expect(pa.counts).toMatchObject({ published: 1, unchanged: 0 });
    expect(pa.shared).toBe(1);
    const pb = await push(bob);
    expect(pb.counts.published).toBe(1);
    // Idempotent by id and content hash.
    expect((await push(alice)).counts).toMatchObject({ published: 0, unchanged: 1, retired: 0 });

    // The store recorded who published each note from the session's role, whatever the client sent.
    const rows = await adminQuery(team.dbUrl, `SELECT id, author, machine FROM recall.notes ORDER BY id`);
    expect(rows.rows.map((r) => [r.id, r.author, r.machine])).toEqual([
      ['lrn-pool', team.roles['alice']!.name, 'alice-laptop'],
      ['lrn-redis', team.roles['bob']!.name, 'bob-desktop'],
    ]);

    const p = await pull(carol);
    expect(p.written).toBe(2);
    expect(p.summary).toMatchObject({ notes: 2, quarantined: 2 });

    // Quarantined by default: a plain recall shows only carol's own note...
    expect((await recall(carol, 'postgres pool session cache')).ids).toEqual(['lrn-carol-own']);
    // ...and --include-quarantined shows the team's, each with its author as the store recorded it.
    const all = await recall(carol, 'postgres pool session cache', { includeQuarantined: true });
    expect(all.ids.sort()).toEqual(['lrn-carol-own', 'lrn-pool', 'lrn-redis']);
    const json = JSON.parse(all.stdout) as { results: { id: string; origin?: { author: string; quarantined: boolean; machine: string } }[] };
    const redis = json.results.find((r) => r.id === 'lrn-redis')!;
    expect(redis.origin).toMatchObject({ author: team.roles['bob']!.name, machine: 'bob-desktop', quarantined: true });
    expect(json.results.find((r) => r.id === 'lrn-carol-own')!.origin).toBeUndefined();
    // bob's own frontmatter said `authority: law, quarantine: false`: ignored.
    const redisNote = all.outcome!.results.find((c) => c.note.displayId === 'lrn-redis')!.note;
    expect(redisNote.authority).toBe('advisory');
    expect(redisNote.quarantine).toBe(true);

    // Markdown shows the author on each pulled note.
    const md = await recall(carol, 'postgres pool session cache', { includeQuarantined: true, format: 'markdown' });
    expect(md.stdout).toContain(`(team: ${team.roles['alice']!.name}@alice-laptop, quarantined)`);
  });

  it('trust decides quarantine and authority, from the store\'s record of the author', async () => {
    const r = teamTrust(team.roles['alice']!.name, { remove: false }, io(carol));
    expect('changed' in r && r.changed).toBe(1);
    expect((await recall(carol, 'postgres pool jest')).ids).toContain('lrn-pool');
    teamTrust(team.roles['bob']!.name, { remove: false, authority: 'promoted' }, io(carol));
    const res = await recall(carol, 'redis eviction session cache');
    const redis = res.outcome!.results.find((c) => c.note.displayId === 'lrn-redis')!.note;
    expect(redis.quarantine).toBe(false);
    expect(redis.authority).toBe('promoted');
    const fleet = await recall(carol, 'redis eviction session cache', { format: 'fleet-context' });
    expect(fleet.stdout).toContain('### Promoted memory');
    expect(fleet.stdout).toContain(`source: team:${team.roles['bob']!.name}@bob-desktop`);
    teamTrust(team.roles['bob']!.name, { remove: true }, io(carol));
    expect((await recall(carol, 'redis eviction session cache')).ids).not.toContain('lrn-redis');
  });

  it('an untrusted teammate reusing the id of one of my notes cannot hide it', async () => {
    write(carol, 'documents/mine.md', noteText('lrn-carol-pgbouncer', 'pgbouncer breaks prepared statements', 'disable the statement cache'));
    write(bob, 'documents/squat.md', shared('lrn-carol-pgbouncer', 'pgbouncer prepared statements are fine', 'ignore it'));
    await push(bob);
    await pull(carol);
    const plain = await recall(carol, 'pgbouncer prepared statements');
    expect(plain.outcome!.results.filter((c) => c.note.displayId === 'lrn-carol-pgbouncer').map((c) => c.note.body)).toEqual([expect.stringContaining('disable the statement cache')]);
    // Both show with --include-quarantined, bob's marked as his.
    const both = await recall(carol, 'pgbouncer prepared statements', { includeQuarantined: true });
    const copies = both.outcome!.results.filter((c) => c.note.displayId === 'lrn-carol-pgbouncer');
    expect(copies.map((c) => c.note.origin?.author ?? 'mine').sort()).toEqual([team.roles['bob']!.name, 'mine'].sort());
    fs.rmSync(path.join(bob.kb, 'documents', 'squat.md'));
    await push(bob);
  });

  it('a pulled note edited by hand loses its provenance and is quarantined', async () => {
    const docs = path.join(carol.state, 'team', 'shard', 'documents');
    const file = fs.readdirSync(docs).find((n) => n.startsWith('lrn-pool'))!;
    const text = fs.readFileSync(path.join(docs, file), 'utf8');
    fs.writeFileSync(path.join(docs, file), text.replace('quarantine: false', 'quarantine: false\nextra: edited'));
    const res = await recall(carol, 'postgres pool jest', { includeQuarantined: true });
    const note = res.outcome!.results.find((c) => c.note.displayId === 'lrn-pool')!.note;
    expect(note.quarantine).toBe(true);
    expect(note.origin).toMatchObject({ author: 'unknown', verified: false });
    expect((await recall(carol, 'postgres pool jest')).ids).not.toContain('lrn-pool');
    // A full pull rewrites it from the store.
    await pull(carol, { full: true });
    expect((await recall(carol, 'postgres pool jest')).ids).toContain('lrn-pool');
  });

  it('supersede and forget propagate; a withdrawn note leaves the shard', async () => {
    write(alice, 'documents/pool2.md', shared('lrn-pool-v2', 'postgres connection pool exhausted: use one pool per worker', 'one pool per jest worker', { supersedes: 'lrn-pool' }));
    write(alice, 'documents/tmux.md', shared('lrn-tmux', 'tmux kill-server drops every postgres tunnel', 'use kill-session'));
    write(alice, 'documents/old.md', shared('lrn-old-redis', 'redis keyspace notifications are off by default', 'enable Ex'));
    await push(alice);
    await pull(carol);
    expect((await recall(carol, 'tmux kill-server tunnel')).ids).toContain('lrn-tmux');
    let ids = (await recall(carol, 'postgres connection pool exhausted')).ids;
    expect(ids).toContain('lrn-pool-v2');
    expect(ids).not.toContain('lrn-pool');
    expect((await adminQuery(team.dbUrl, `SELECT state, superseded_by FROM recall.notes WHERE id = 'lrn-pool' AND head`)).rows[0]).toEqual({ state: 'superseded', superseded_by: 'lrn-pool-v2' });

    // Forget: the note moves to documents/.forgotten/ on alice's machine.
    fs.mkdirSync(path.join(alice.kb, 'documents', '.forgotten'), { recursive: true });
    fs.renameSync(path.join(alice.kb, 'documents', 'tmux.md'), path.join(alice.kb, 'documents', '.forgotten', 'tmux.md'));
    // Withdraw: the share mark is removed.
    write(alice, 'documents/old.md', noteText('lrn-old-redis', 'redis keyspace notifications are off by default', 'enable Ex'));
    const pr = await push(alice);
    expect(pr.counts.retired).toBe(2);
    const p = await pull(carol);
    expect(p.removed).toBeGreaterThanOrEqual(2);
    expect((await recall(carol, 'tmux kill-server tunnel', { includeQuarantined: true })).ids).not.toContain('lrn-tmux');
    expect((await recall(carol, 'redis keyspace notifications', { includeQuarantined: true })).ids).not.toContain('lrn-old-redis');
    ids = fs.readdirSync(path.join(carol.state, 'team', 'shard', 'documents')).filter((n) => n.endsWith('.md'));
    expect(ids.some((n) => n.startsWith('lrn-tmux'))).toBe(false);
    expect((await adminQuery(team.dbUrl, `SELECT state FROM recall.notes WHERE id = 'lrn-tmux' AND head`)).rows[0].state).toBe('forgotten');

    // Shared again, unchanged: the same revision is current again and comes back on the next pull.
    write(alice, 'documents/old.md', shared('lrn-old-redis', 'redis keyspace notifications are off by default', 'enable Ex'));
    expect((await push(alice)).counts.published).toBe(1);
    await pull(carol);
    expect((await recall(carol, 'redis keyspace notifications', { includeQuarantined: true })).ids).toContain('lrn-old-redis');
    expect((await adminQuery(team.dbUrl, `SELECT count(*)::int AS n FROM recall.notes WHERE id = 'lrn-old-redis'`)).rows[0].n).toBe(1);
  });

  it('conflicting edits of one id keep the newer by updated time and the older as a superseded revision, in either push order', async () => {
    const edit = (m: Machine, updated: string, body: string): void => write(m, 'documents/deploy.md', shared('lrn-deploy', `deploy with blue green ${body}`, body, { updated }));
    // bob's edit is newer but is pushed first; alice's older edit arrives later and must not win.
    edit(bob, '2026-11-20T10:00:00Z', 'drain connections before switching');
    edit(alice, '2026-11-10T10:00:00Z', 'switch first then drain');
    await push(bob);
    const late = await push(alice);
    expect(late.counts.keptAsRevision).toBe(1);
    let revs = (await adminQuery(team.dbUrl, `SELECT revision, head, state, author FROM recall.notes WHERE id = 'lrn-deploy' ORDER BY revision`)).rows;
    expect(revs).toEqual([
      { revision: 1, head: true, state: 'current', author: team.roles['bob']!.name },
      { revision: 2, head: false, state: 'superseded', author: team.roles['alice']!.name },
    ]);
    // Now alice edits again, newer than bob's: hers becomes the head, bob's is kept.
    edit(alice, '2026-11-25T10:00:00Z', 'use the new drain hook');
    const newer = await push(alice);
    expect(newer.counts.replacedOther).toBe(1);
    revs = (await adminQuery(team.dbUrl, `SELECT revision, head, state FROM recall.notes WHERE id = 'lrn-deploy' ORDER BY revision`)).rows;
    expect(revs.map((r) => [r.revision, r.head, r.state])).toEqual([
      [1, false, 'superseded'],
      [2, false, 'superseded'],
      [3, true, 'current'],
    ]);
    const hist = await teamHistory('lrn-deploy', io(carol));
    expect(hist.split('\n').filter(Boolean)).toHaveLength(3);
    await pull(carol);
    const res = await recall(carol, 'deploy blue green drain', { includeQuarantined: true });
    const note = res.outcome!.results.find((c) => c.note.displayId === 'lrn-deploy')!.note;
    expect(note.body).toContain('use the new drain hook');
  });

  it('a newer revision by an untrusted author does not displace a trusted author\'s revision', async () => {
    // carol trusts alice (above), not bob. bob edits alice's note with a later time.
    write(bob, 'documents/deploy.md', shared('lrn-deploy', 'deploy with blue green: skip the drain', 'skip the drain entirely', { updated: '2026-11-30T10:00:00Z' }));
    await push(bob);
    await pull(carol);
    let note = (await recall(carol, 'deploy blue green drain')).outcome!.results.find((c) => c.note.displayId === 'lrn-deploy')!.note;
    expect(note.body).toContain('use the new drain hook');
    expect(note.quarantine).toBe(false);
    // Once bob is trusted, the next pull shows his newer revision.
    teamTrust(team.roles['bob']!.name, { remove: false }, io(carol));
    await pull(carol);
    note = (await recall(carol, 'deploy blue green drain')).outcome!.results.find((c) => c.note.displayId === 'lrn-deploy')!.note;
    expect(note.body).toContain('skip the drain entirely');
    teamTrust(team.roles['bob']!.name, { remove: true }, io(carol));
  });

  it('published content and authorship cannot be rewritten by a teammate', async () => {
    const asBob = (sql: string) => adminQuery(team.roles['bob']!.url, sql);
    await expect(asBob(`UPDATE recall.notes SET body = 'pwned' WHERE id = 'lrn-pool-v2'`)).rejects.toThrow(/cannot be changed/);
    await expect(asBob(`UPDATE recall.notes SET author = 'x' WHERE id = 'lrn-pool-v2'`)).rejects.toThrow(/cannot be changed/);
    await expect(asBob(`DELETE FROM recall.notes WHERE id = 'lrn-pool-v2'`)).rejects.toThrow(/permission denied/);
    await asBob(`INSERT INTO recall.notes (id, revision, content_hash, title, body, frontmatter, author, machine, kb, updated_at, head)
                 VALUES ('lrn-forged', 1, 'h', 't', 'b', '{}', '${team.roles['alice']!.name}', 'alice-laptop', '/x', now(), true)`);
    const row = (await adminQuery(team.dbUrl, `SELECT author FROM recall.notes WHERE id = 'lrn-forged'`)).rows[0];
    expect(row.author).toBe(team.roles['bob']!.name);
  });

  it('incremental pull reads only what changed; status reports both ends without the password', async () => {
    await pull(carol); // the trust change above asked for one full re-read
    const before = await pull(carol);
    expect(before.full).toBe(false);
    expect(before.rows).toBe(0);
    write(alice, 'documents/k8s.md', shared('lrn-k8s', 'kubernetes readiness probe checks postgres', 'liveness must not'));
    await push(alice);
    const after = await pull(carol);
    expect(after.rows).toBe(1);
    expect(after.written).toBe(1);
    const s = await teamStatus(carol.env, { probe: true });
    expect(s.configured).toBe(true);
    expect(s.lastPull?.rows).toBe(1);
    expect(s.server && s.server.reachable && s.server.counts.current).toBeGreaterThan(3);
    const sa = await teamStatus(alice.env, { probe: false });
    expect(sa.lastPush[0]?.kb).toBe(fs.realpathSync(alice.kb));
    const text = formatStatus(s) + JSON.stringify(s) + formatStatus(sa);
    for (const pw of secrets) expect(text).not.toContain(pw);
    expect(text).toContain(team.roles['carol']!.name);
  });

  it('hooks read the pulled shard without the network', async () => {
    const env = { ...carol.env, RECALL_TEAM_URL: `postgres://${team.roles['carol']!.name}:${encodeURIComponent(team.roles['carol']!.password)}@127.0.0.1:1/nowhere`, GLOBAL_LEARNINGS_PATH: carol.kb };
    const out = await runHook(HOOKS['user-prompt-submit']!, {
      stdinText: JSON.stringify({ session_id: 's1', prompt: 'postgres connection pool exhausted in jest workers', hook_event_name: 'UserPromptSubmit' }),
      env,
      cwd: carol.kb,
    });
    expect(out.context).toContain('lrn-pool-v2');
    expect(out.context).toContain(`team: ${team.roles['alice']!.name}@alice-laptop`);
  });

  it('the live arm finds store notes during a recall (RECALL_TEAM_ARM=1)', async () => {
    write(alice, 'documents/live.md', shared('lrn-live-only', 'grpc deadline exceeded behind envoy', 'raise the route timeout'));
    await push(alice);
    // Not pulled yet: only the live arm can find it.
    expect((await recall(carol, 'grpc deadline envoy')).ids).not.toContain('lrn-live-only');
    const res = await recall(carol, 'grpc deadline envoy', {}, { RECALL_TEAM_ARM: '1' });
    expect(res.ids).toContain('lrn-live-only');
    const arm = res.outcome!.arms.find((a) => a.arm === 'team')!;
    expect(arm.status).toBe('ok');
    const hit = res.outcome!.results.find((c) => c.note.displayId === 'lrn-live-only')!;
    expect(hit.note.origin?.author).toBe(team.roles['alice']!.name);
    expect(hit.ranks.team).toBe(1);
  });

  it('push stores note vectors when an embedding model is installed', async () => {
    const models = path.join(base, 'models');
    fs.cpSync(path.join(repo, 'spec', 'fixtures', 'models'), models, { recursive: true });
    write(alice, 'documents/vec.md', shared('lrn-vec', 'kafka consumer lag after rebalance', 'pin the partition assignment strategy'));
    const r = await teamPush({ kb: alice.kb, global: false, allBranches: false, all: false }, io(alice, { REFLECT_MODELS_DIR: models, REFLECT_EMBED_MODEL: 'fixture/tiny-embed', REFLECT_NO_DAEMON: '1' }));
    expect(r.vectors).toBe('vectors from fixture/tiny-embed');
    const row = (await adminQuery(team.dbUrl, `SELECT embed_model, array_length(embedding, 1) AS dim FROM recall.notes WHERE id = 'lrn-vec' AND head`)).rows[0];
    expect(row.embed_model).toBe('fixture/tiny-embed');
    expect(row.dim).toBeGreaterThan(0);
  });

  it('the store ranks notes by note vector when the query has one (pgvector on the server when it has it, else in the client)', async () => {
    const { openStore, pushBatch, searchStore, storeInfo } = await import('../../sources/team-store.js');
    const { loadTeamSettings } = await import('../../sources/team-settings.js');
    const conn = await openStore(loadTeamSettings(alice.env, alice.state));
    try {
      const info = await storeInfo(conn);
      // Debian 12 has no pgvector package: usually the client scores; a server with the extension scores itself.
      const available = (await adminQuery(team.dbUrl, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS ok`)).rows[0].ok as boolean;
      expect(info.pgvector).toBe(available);
      const item = (id: string, embedding: number[]) => ({
        id, contentHash: `hash-${id}`, title: 'flaky selenium grid session', body: 'grid session', frontmatter: { id },
        createdAt: null, updatedAt: '2026-11-01T00:00:00Z', embedModel: 'm-test', embedding,
      });
      await pushBatch(conn, { machine: 'alice-laptop', kb: '/v' }, [item('lrn-v1', [1, 0, 0]), item('lrn-v2', [0, 1, 0])], [], info.pgvector);
      const ids = async (q: string, v: number[]) => (await searchStore(conn, q, 5, 'carol-laptop', { model: 'm-test', query: v, pgvector: info.pgvector })).map((h) => h.row.id);
      expect((await ids('selenium grid session', [0, 1, 0])).slice(0, 2)).toEqual(['lrn-v2', 'lrn-v1']);
      expect((await ids('selenium grid session', [1, 0.1, 0])).slice(0, 2)).toEqual(['lrn-v1', 'lrn-v2']);
      // Only the server can find by vector a note that shares no word with the query.
      const wordless = await ids('zeppelin', [0, 1, 0]);
      expect(wordless[0] === 'lrn-v2').toBe(info.pgvector);
    } finally {
      await conn.close();
    }
  });

  it('the CLI never prints the password, even when the connection fails', () => {
    const pw = team.roles['carol']!.password;
    const bad = `postgres://${team.roles['carol']!.name}:${encodeURIComponent(pw)}x@${server!.host}:${server!.port}/${team.db}`;
    const run = (args: string[], env: Record<string, string>) => spawnSync(BIN, args, { env: { ...carol.env, ...env }, cwd: carol.kb, encoding: 'utf8', timeout: 30_000 });
    const wrongPw = run(['team', 'pull'], { RECALL_TEAM_URL: bad });
    expect(wrongPw.status).toBe(1);
    expect(wrongPw.stderr).toMatch(/password authentication failed/);
    const down = run(['team', 'push', '--kb', carol.kb], { RECALL_TEAM_URL: `postgres://u:${encodeURIComponent(pw)}@127.0.0.1:1/x` });
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/ECONNREFUSED/);
    const status = run(['team', 'status'], { RECALL_TEAM_URL: `postgres://u:${encodeURIComponent(pw)}@127.0.0.1:1/x` });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/server: unreachable/);
    const live = run(['postgres pool', '--verbose', '--format', 'json'], { RECALL_TEAM_URL: `postgres://u:${encodeURIComponent(pw)}@127.0.0.1:1/x`, RECALL_TEAM_ARM: '1' });
    expect(live.status).toBe(0);
    expect(JSON.parse(live.stdout).arms.find((a: { arm: string }) => a.arm === 'team').status).toBe('error');
    const everything = [wrongPw, down, status, live].map((r) => r.stdout + r.stderr).join('\n') + allText(carol.state);
    for (const s of [...secrets, encodeURIComponent(pw)]) expect(everything).not.toContain(s);
  });
});

// These tests stop and freeze a server, so they need one of their own (server binaries on this machine).
const ownServer = findPgBin() !== null ? describe : describe.skip;
if (findPgBin() === null && server) console.warn('team store stop/freeze tests SKIPPED: no PostgreSQL server binaries here to start a private cluster');

ownServer('team store when the server goes away', () => {
  let own: Cluster;
  let t: Awaited<ReturnType<typeof freshTeam>>;
  let writer: Machine;
  let reader: Machine;

  beforeAll(async () => {
    // A private cluster: these tests stop and freeze the server (and it speaks TLS).
    own = await startCluster({ ssl: true });
    t = await freshTeam({ adminUrl: own.url, cluster: own, host: '127.0.0.1', port: own.port }, ['w', 'r']);
    writer = machine('writer', t.roles['w']!.url);
    reader = machine('reader', t.roles['r']!.url);
    await teamInit({ url: t.dbUrl, grant: [t.roles['w']!.name, t.roles['r']!.name], grantRead: [], shareAll: [] }, { env: { ...writer.env, RECALL_TEAM_URL: '' }, cwd: writer.kb, warn: () => undefined });
    for (let i = 0; i < 50; i += 1) write(writer, `documents/n${i}.md`, noteText(`lrn-n${i}`, `note ${i} about postgres replica lag ${i}`, `body ${i}`));
    expect((await push(writer, { all: true })).counts.published).toBe(50);
  }, 120_000);

  afterAll(() => own?.stop());

  it('TLS settings from the URL or the PG variables reach the connection', async () => {
    const st = async (env: Record<string, string>) => (await teamStatus({ ...reader.env, ...env }, { probe: true })).server!;
    const url = new URL(t.roles['r']!.url);
    url.hostname = 'localhost';
    expect(await st({ RECALL_TEAM_URL: url.toString(), PGSSLMODE: 'verify-full', PGSSLROOTCERT: own.caFile! })).toMatchObject({ reachable: true });
    // Without the CA the self-signed certificate is refused; `require` encrypts without checking it.
    expect(await st({ RECALL_TEAM_URL: url.toString(), PGSSLMODE: 'verify-full' })).toMatchObject({ reachable: false, error: expect.stringMatching(/self.signed|certificate/i) });
    expect(await st({ RECALL_TEAM_URL: url.toString(), PGSSLMODE: 'require' })).toMatchObject({ reachable: true });
    expect(await st({ RECALL_TEAM_URL: `${url.toString()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(own.caFile!)}` })).toMatchObject({ reachable: true });
    const { openStore } = await import('../../sources/team-store.js');
    const { loadTeamSettings } = await import('../../sources/team-settings.js');
    const encrypted = async (mode: string): Promise<boolean> => {
      const conn = await openStore(loadTeamSettings({ ...reader.env, RECALL_TEAM_URL: url.toString(), PGSSLMODE: mode }, reader.state));
      try {
        return (await conn.query<{ ssl: boolean }>(`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`))[0]!.ssl;
      } finally {
        await conn.close();
      }
    };
    expect(await encrypted('require')).toBe(true);
    expect(await encrypted('disable')).toBe(false);
    expect(await st({ PGSSLMODE: 'bogus' })).toMatchObject({ reachable: false, error: expect.stringMatching(/PGSSLMODE/) });
  });

  it('a server stopped mid-pull leaves the shard consistent, and the next pull completes it', async () => {
    let pages = 0;
    await expect(
      pull(reader, {
        pageSize: 10,
        onPage: () => {
          pages += 1;
          if (pages === 2) own.pause();
        },
      }),
    ).rejects.toThrow(/pull interrupted after 20 notes/);
    const docs = path.join(reader.state, 'team', 'shard', 'documents');
    const notes = fs.readdirSync(docs).filter((n) => n.endsWith('.md'));
    expect(notes).toHaveLength(20);
    for (const n of notes) {
      const side = JSON.parse(fs.readFileSync(provenancePath(path.join(docs, n)), 'utf8')) as { file_sha256: string };
      const { createHash } = await import('node:crypto');
      expect(side.file_sha256).toBe(createHash('sha256').update(fs.readFileSync(path.join(docs, n))).digest('hex'));
    }
    // No temp files left behind, and recall works on what is there.
    expect(fs.readdirSync(docs).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect((await recall(reader, 'postgres replica lag', { includeQuarantined: true, limit: 50 })).ids.length).toBe(20);
    const status = await teamStatus(reader.env);
    expect(status.shard.notes).toBe(20);
    expect(status.lastPullError?.message).toMatch(/interrupted|terminat|connect/i);

    own.resume();
    const rest = await pull(reader, { pageSize: 10 });
    expect(rest.written).toBe(30);
    expect(rest.summary.notes).toBe(50);
    expect(fs.readdirSync(docs).filter((n) => n.endsWith('.md'))).toHaveLength(50);
  }, 60_000);

  it('the live arm degrades within its timeout when the server is stopped or frozen', async () => {
    await pull(reader);
    own.pause();
    let t0 = Date.now();
    let res = await recall(reader, 'postgres replica lag', { includeQuarantined: true }, { RECALL_TEAM_ARM: '1', RECALL_TEAM_TIMEOUT: '1' });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(res.outcome!.arms.find((a) => a.arm === 'team')!.status).toBe('error');
    expect(res.ids.length).toBeGreaterThan(0); // the pulled shard still answers
    own.resume();

    // A frozen server accepts the connection and never answers: the arm's timeout ends it.
    const pid = Number(fs.readFileSync(path.join(own.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGSTOP');
    try {
      t0 = Date.now();
      res = await recall(reader, 'postgres replica lag', { includeQuarantined: true }, { RECALL_TEAM_ARM: '1', RECALL_TEAM_TIMEOUT: '1' });
      const ms = Date.now() - t0;
      expect(res.outcome!.arms.find((a) => a.arm === 'team')!.status).toBe('timeout');
      expect(ms).toBeLessThan(3000);
      expect(res.ids.length).toBeGreaterThan(0);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }, 60_000);
});
