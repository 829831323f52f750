/**
 * Sharing notes through the team store on a real PostgreSQL server: two KBs standing for two
 * machines push, a third machine pulls and recalls their notes with provenance; supersede and forget
 * propagate; conflicting edits keep both revisions; trust decides quarantine and authority; hooks
 * and the live arm read what was shared.
 */
import { it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshTeam, adminQuery } from '../helpers/pg.js';
import { teamStatus, teamTrust, teamHistory, formatStatus } from '../../cli/team/team.js';
import { runHook } from '../../hooks/runtime.js';
import { hookCall } from '../../client/hook-call.js';
import { HOOKS } from '../../hooks/registry.js';
import { noteText } from '../helpers/kb.js';
import { io, pull, push, recall, shared, startTeam, stopTeam, suite, write, type Machine } from './team-e2e.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-'));
let team: Awaited<ReturnType<typeof freshTeam>>;
let secrets: string[] = [];
let alice: Machine, bob: Machine, carol: Machine;

suite('sharing notes through the team store', () => {
  beforeAll(async () => void ({ team, secrets, alice, bob, carol } = await startTeam(base)), 60_000);
  afterAll(() => stopTeam(base));

  it('two machines push; a third pulls and recalls their notes next to its own, with authors and quarantine', async () => {
    write(
      alice,
      'documents/pool.md',
      shared('lrn-pool', 'postgres connection pool exhausted in jest', 'close the pool in afterAll so jest exits'),
    );
    write(alice, 'documents/secret.md', noteText('lrn-alice-private', 'postgres pool private tuning notes', 'not for the team'));
    write(
      bob,
      'documents/redis.md',
      shared('lrn-redis', 'redis eviction drops postgres session cache keys', 'use volatile-lru', { authority: 'law', quarantine: false }),
    );
    write(
      carol,
      'documents/own.md',
      noteText('lrn-carol-own', 'postgres session cache and pool sizing per worker', 'size the session cache and the pool per worker'),
    );

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
    const json = JSON.parse(all.stdout) as {
      results: { id: string; origin?: { author: string; quarantined: boolean; machine: string } }[];
    };
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

  it("trust decides quarantine and authority, from the store's record of the author", async () => {
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
    write(
      carol,
      'documents/mine.md',
      noteText('lrn-carol-pgbouncer', 'pgbouncer breaks prepared statements', 'disable the statement cache'),
    );
    write(bob, 'documents/squat.md', shared('lrn-carol-pgbouncer', 'pgbouncer prepared statements are fine', 'ignore it'));
    await push(bob);
    await pull(carol);
    const plain = await recall(carol, 'pgbouncer prepared statements');
    expect(plain.outcome!.results.filter((c) => c.note.displayId === 'lrn-carol-pgbouncer').map((c) => c.note.body)).toEqual([
      expect.stringContaining('disable the statement cache'),
    ]);
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
    write(
      alice,
      'documents/pool2.md',
      shared('lrn-pool-v2', 'postgres connection pool exhausted: use one pool per worker', 'one pool per jest worker', {
        supersedes: 'lrn-pool',
      }),
    );
    write(alice, 'documents/tmux.md', shared('lrn-tmux', 'tmux kill-server drops every postgres tunnel', 'use kill-session'));
    write(alice, 'documents/old.md', shared('lrn-old-redis', 'redis keyspace notifications are off by default', 'enable Ex'));
    await push(alice);
    await pull(carol);
    expect((await recall(carol, 'tmux kill-server tunnel')).ids).toContain('lrn-tmux');
    let ids = (await recall(carol, 'postgres connection pool exhausted')).ids;
    expect(ids).toContain('lrn-pool-v2');
    expect(ids).not.toContain('lrn-pool');
    expect((await adminQuery(team.dbUrl, `SELECT state, superseded_by FROM recall.notes WHERE id = 'lrn-pool' AND head`)).rows[0]).toEqual({
      state: 'superseded',
      superseded_by: 'lrn-pool-v2',
    });

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
    const edit = (m: Machine, updated: string, body: string): void =>
      write(m, 'documents/deploy.md', shared('lrn-deploy', `deploy with blue green ${body}`, body, { updated }));
    // bob's edit is newer but is pushed first; alice's older edit arrives later and must not win.
    edit(bob, '2026-11-20T10:00:00Z', 'drain connections before switching');
    edit(alice, '2026-11-10T10:00:00Z', 'switch first then drain');
    await push(bob);
    const late = await push(alice);
    expect(late.counts.keptAsRevision).toBe(1);
    let revs = (
      await adminQuery(team.dbUrl, `SELECT revision, head, state, author FROM recall.notes WHERE id = 'lrn-deploy' ORDER BY revision`)
    ).rows;
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

  it("a newer revision by an untrusted author does not displace a trusted author's revision", async () => {
    // carol trusts alice (above), not bob. bob edits alice's note with a later time.
    write(
      bob,
      'documents/deploy.md',
      shared('lrn-deploy', 'deploy with blue green: skip the drain', 'skip the drain entirely', { updated: '2026-11-30T10:00:00Z' }),
    );
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
    // Teammates may update only the lifecycle columns, of their own rows (team-trust.e2e.test.ts has more).
    for (const set of [`body = 'pwned'`, `author = 'x'`, `embedding = '{1,2}'`])
      await expect(asBob(`UPDATE recall.notes SET ${set} WHERE id = 'lrn-pool-v2'`)).rejects.toThrow(/permission denied/);
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
    const env = {
      ...carol.env,
      RECALL_TEAM_URL: `postgres://${team.roles['carol']!.name}:${encodeURIComponent(team.roles['carol']!.password)}@127.0.0.1:1/nowhere`,
      GLOBAL_LEARNINGS_PATH: carol.kb,
    };
    const prompt = 'postgres connection pool exhausted in jest workers';
    const stdinText = JSON.stringify({ session_id: 's1', prompt, hook_event_name: 'UserPromptSubmit' });
    const call = hookCall('user-prompt-submit', stdinText, { env, cwd: carol.kb, startedMs: Date.now() });
    const out = await runHook(HOOKS['user-prompt-submit'], call);
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
});
