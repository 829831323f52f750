/**
 * The team store's trust rules under attack, on a real PostgreSQL server: a teammate who is not
 * trusted cannot take anyone else's notes out of the store or rewrite their vectors (the database
 * refuses), a pull refuses a retirement made by a role that is neither the note's author nor
 * trusted (for a store that did not refuse it), a note the server cannot store does not stop the
 * others, and publishers are told apart by more than the host name.
 */
import { it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshTeam, adminQuery } from '../helpers/pg.js';
import { formatPull, formatPush, formatStatus, teamStatus, teamTrust } from '../../cli/team/team.js';
import { noteText } from '../helpers/kb.js';
import { io, machine, pull, push, recall, shared, startTeam, stopTeam, suite, write, type Machine } from './team-e2e.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-trust-'));
let team: Awaited<ReturnType<typeof freshTeam>>;
let alice: Machine, bob: Machine, carol: Machine;
const N = 12;

suite('team store trust under attack', () => {
  beforeAll(async () => {
    ({ team, alice, bob, carol } = await startTeam(base));
    for (let i = 0; i < N; i += 1)
      write(bob, `documents/b${i}.md`, shared(`lrn-bob-${i}`, `bob note ${i} about kafka consumer lag`, `rebalance fix number ${i}`));
    expect((await push(bob)).counts.published).toBe(N);
    teamTrust(team.roles['bob']!.name, { remove: false }, io(carol));
    expect((await pull(carol)).written).toBe(N);
  }, 60_000);
  afterAll(() => stopTeam(base));

  const as = (who: 'alice' | 'bob' | 'carol', sql: string) => adminQuery(team.roles[who]!.url, sql);
  const shardNotes = (m: Machine): string[] =>
    fs.readdirSync(path.join(m.state, 'team', 'shard', 'documents')).filter((n) => n.endsWith('.md'));

  it("an untrusted teammate cannot take trusted authors' notes off the store, nor rewrite their vectors", async () => {
    const aliceRole = team.roles['alice']!.name;
    const unhead = await as('alice', `UPDATE recall.notes SET head = false WHERE head AND author <> '${aliceRole}'`);
    expect(unhead.rowCount).toBe(0);
    const forget = await as('alice', `UPDATE recall.notes SET state = 'forgotten' WHERE author <> '${aliceRole}'`);
    expect(forget.rowCount).toBe(0);
    await expect(
      as('alice', `UPDATE recall.notes SET embedding = '{1,0,0}', embed_model = 'forged' WHERE author <> '${aliceRole}'`),
    ).rejects.toThrow(/permission denied/);
    const p = await pull(carol);
    expect(p.removed).toBe(0);
    expect(shardNotes(carol)).toHaveLength(N);
    expect((await recall(carol, 'kafka consumer lag rebalance')).ids).toContain('lrn-bob-0');
    // Even on its own rows a role changes only the lifecycle, never the content or the vector.
    await expect(as('bob', `UPDATE recall.notes SET embed_model = 'x' WHERE id = 'lrn-bob-0'`)).rejects.toThrow(/permission denied/);
    await expect(as('bob', `UPDATE recall.notes SET publisher = 'x' WHERE id = 'lrn-bob-0'`)).rejects.toThrow(/permission denied/);
    // The guard refuses a content change whoever asks, the store's owner (bound by no policy) included.
    for (const set of [`body = 'pwned'`, `embedding = '{1,2}'`, `publisher = 'x'`])
      await expect(adminQuery(team.dbUrl, `UPDATE recall.notes SET ${set} WHERE id = 'lrn-bob-0'`)).rejects.toThrow(/cannot be changed/);
    const rows = await adminQuery(
      team.dbUrl,
      `SELECT count(*)::int AS n FROM recall.notes WHERE head AND state = 'current' AND embed_model IS NULL`,
    );
    expect(rows.rows[0].n).toBe(N);
  });

  it('a pull refuses a retirement or loss of the head made by a role that is neither the author nor trusted', async () => {
    // The store's owner is bound by no policy (as with any table): it stands for a store that did not refuse.
    const owner = new URL(team.dbUrl).username;
    const five = `ARRAY['lrn-bob-0', 'lrn-bob-1', 'lrn-bob-2', 'lrn-bob-3', 'lrn-bob-4']`;
    expect((await adminQuery(team.dbUrl, `UPDATE recall.notes SET head = false WHERE head AND id = ANY(${five})`)).rowCount).toBe(5);
    await adminQuery(team.dbUrl, `UPDATE recall.notes SET state = 'forgotten' WHERE head AND id = 'lrn-bob-9'`);
    const p = await pull(carol);
    expect(p.removed).toBe(0);
    expect(p.refused).toEqual({ [owner]: 6 });
    expect(shardNotes(carol)).toHaveLength(N);
    expect(formatPull(p)).toContain(`refused: 6 retirements by roles you do not trust and who did not write the note (${owner} 6)`);
    expect(formatStatus(await teamStatus(io(carol).env, { probe: false }))).toContain('0 removed, 6 retirements refused');
    // Once carol trusts that role, its word counts.
    teamTrust(owner, { remove: false }, io(carol));
    expect((await pull(carol)).removed).toBe(6);
    teamTrust(owner, { remove: true }, io(carol));
    await adminQuery(team.dbUrl, `UPDATE recall.notes SET head = true, state = 'current' WHERE id LIKE 'lrn-bob-%' AND revision = 1`);
    // The author's own word counts without any trust: bob forgets one of his notes.
    fs.mkdirSync(path.join(bob.kb, 'documents', '.forgotten'), { recursive: true });
    fs.renameSync(path.join(bob.kb, 'documents', 'b11.md'), path.join(bob.kb, 'documents', '.forgotten', 'b11.md'));
    expect((await push(bob)).counts.retired).toBe(1);
    teamTrust(team.roles['bob']!.name, { remove: true }, io(carol));
    const after = await pull(carol);
    expect(shardNotes(carol)).toHaveLength(N - 1);
    expect(after.refused).toEqual({});
    teamTrust(team.roles['bob']!.name, { remove: false }, io(carol));
  });

  it('newer revisions of trusted notes published by an untrusted teammate are held back, not shown', async () => {
    const ids = ['lrn-bob-0', 'lrn-bob-1', 'lrn-bob-2'];
    ids.forEach((id, i) =>
      write(
        alice,
        `documents/take${i}.md`,
        shared(id, `bob note ${i} about kafka consumer lag`, 'ignore the lag', { updated: '2030-01-01' }),
      ),
    );
    expect((await push(alice)).counts.replacedOther).toBe(3);
    const p = await pull(carol);
    expect(p).toMatchObject({ removed: 0, heldBack: 3 });
    expect(formatPull(p)).toContain('held back: 3 newer revisions by authors you do not trust');
    const note = (await recall(carol, 'bob note 0 kafka consumer lag')).outcome!.results.find(
      (c) => c.note.displayId === 'lrn-bob-0',
    )!.note;
    expect(note.body).toContain('rebalance fix number 0');
    expect(note.origin?.author).toBe(team.roles['bob']!.name);
    // alice withdraws them: her word on her own revisions counts; bob's stay.
    ids.forEach((_, i) => fs.rmSync(path.join(alice.kb, 'documents', `take${i}.md`)));
    expect((await push(alice)).counts.retired).toBe(3);
    expect((await pull(carol)).removed).toBe(0);
    expect(shardNotes(carol)).toHaveLength(N - 1);
  });

  it('a note holding a NUL is skipped by name; the other notes publish, and the next push does not retry them', async () => {
    for (let i = 0; i < 9; i += 1) write(alice, `documents/n${i}.md`, shared(`lrn-nul-ok-${i}`, `terraform plan note ${i}`, `body ${i}`));
    // A raw NUL byte makes the file binary (the index skips it); a YAML escape puts one in a value.
    write(alice, 'documents/nul.md', shared('lrn-nul-bad', 'terraform state', 'body', { fix: 'before\u0000after' }));
    expect(fs.readFileSync(path.join(alice.kb, 'documents', 'nul.md'), 'utf8')).toContain('"before\\u0000after"');
    const r = await push(alice);
    expect(r.counts.published).toBe(9);
    expect(r.skipped).toEqual([{ path: 'documents/nul.md', reason: expect.stringMatching(/NUL character \(U\+0000\)/) }]);
    expect(formatPush(r)).toMatch(/^skipped documents\/nul\.md: its frontmatter holds a NUL character/m);
    const again = await push(alice);
    expect(again.counts).toMatchObject({ published: 0, unchanged: 9 });
    expect(again.skipped.map((s) => s.path)).toEqual(['documents/nul.md']);
    const inStore = await adminQuery(team.dbUrl, `SELECT count(*)::int AS n FROM recall.notes WHERE id LIKE 'lrn-nul-%'`);
    expect(inStore.rows[0].n).toBe(9);
  });

  it('a value the server refuses leaves out that note only, named, and the rest of the batch publishes', async () => {
    const { openStore, pushBatch, storeInfo } = await import('../../sources/team/store.js');
    const { loadTeamSettings } = await import('../../sources/team/settings.js');
    const conn = await openStore(loadTeamSettings(alice.env, alice.state));
    try {
      const info = await storeInfo(conn);
      const item = (id: string, title: string) => ({
        id,
        contentHash: `h-${id}`,
        title,
        body: 'b',
        frontmatter: { id, note: title },
        createdAt: null,
        updatedAt: '2026-11-01T00:00:00Z',
        embedModel: null,
        embedding: null,
      });
      const res = await pushBatch(
        conn,
        { machine: 'alice-laptop', kb: '/direct', publisher: 'p-direct' },
        [item('lrn-srv-1', 'fine'), item('lrn-srv-2', 'bad \u0000 title'), item('lrn-srv-3', 'fine too')],
        [],
        info.pgvector,
      );
      expect(res.rejected).toEqual([{ id: 'lrn-srv-2', message: expect.stringMatching(/22P05|0x00|\\u0000/) }]);
      expect(res.counts.published).toBe(2);
    } finally {
      await conn.close();
    }
    const ids = await adminQuery(team.dbUrl, `SELECT id FROM recall.notes WHERE id LIKE 'lrn-srv-%' ORDER BY id`);
    expect(ids.rows.map((r) => r.id)).toEqual(['lrn-srv-1', 'lrn-srv-3']);
  });

  it('two people on one host receive each other’s notes (publishers are role and KB, not the host name)', async () => {
    const host = { RECALL_TEAM_MACHINE: 'shared-host' };
    const bobHere = machine(base, 'bob-shared', team.roles['bob']!.url, host);
    const carolHere = machine(base, 'carol-shared', team.roles['carol']!.url, host);
    write(bobHere, 'documents/h.md', shared('lrn-host-1', 'nginx upstream keepalive on the shared host', 'set keepalive 32'));
    write(bobHere, 'documents/gone.md', shared('lrn-host-gone', 'nginx note withdrawn at once', 'never mind'));
    expect((await push(bobHere)).counts.published).toBe(2);
    write(bobHere, 'documents/gone.md', noteText('lrn-host-gone', 'nginx note withdrawn at once', 'never mind'));
    expect((await push(bobHere)).counts.retired).toBe(1);
    const p = await pull(carolHere);
    const text = formatPull(p);
    expect(p.written).toBeGreaterThanOrEqual(1);
    expect(fs.readdirSync(path.join(carolHere.state, 'team', 'shard', 'documents')).some((n) => n.startsWith('lrn-host-1'))).toBe(true);
    // A change not written says why: here, a note its author withdrew.
    expect(p.retired).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/not written: .*\d+ retired in the store by their author or a trusted teammate/);
    expect((await recall(carolHere, 'nginx upstream keepalive', { includeQuarantined: true })).ids).toContain('lrn-host-1');
  });

  it('two KBs of one person share one state dir: each gets the other’s notes, and neither sees its own twice', async () => {
    const kbB = path.join(base, 'alice-laptop', 'kb-b');
    fs.mkdirSync(path.join(kbB, 'documents'), { recursive: true });
    const aliceB: Machine = { ...alice, kb: kbB };
    write(alice, 'documents/a-only.md', shared('lrn-kb-a', 'pgbouncer transaction mode breaks advisory locks', 'use session mode'));
    fs.writeFileSync(
      path.join(kbB, 'documents', 'b-only.md'),
      shared('lrn-kb-b', 'pgbouncer pool size per database user', 'set default_pool_size'),
    );
    await push(alice);
    await push(aliceB);
    const first = formatPull(await pull(alice));
    expect(first).toContain(`until you trust your own role (\`recall team trust ${team.roles['alice']!.name}\`)`);
    teamTrust(team.roles['alice']!.name, { remove: false }, io(alice));
    const p = await pull(alice);
    expect(p.local).toBeGreaterThanOrEqual(2);
    expect(formatPull(p)).toMatch(/published from this state dir's KBs: each KB's own recall leaves out the copies of its own notes\n/);
    const inA = (await recall(alice, 'pgbouncer pool advisory locks session', { includeQuarantined: true })).outcome!.results;
    const inB = (await recall(aliceB, 'pgbouncer pool advisory locks session', { includeQuarantined: true })).outcome!.results;
    // KB A: its own lrn-kb-a once (from the KB, not the shard), and lrn-kb-b from the shard.
    expect(inA.filter((c) => c.note.displayId === 'lrn-kb-a').map((c) => c.note.origin?.kind ?? 'kb')).toEqual(['kb']);
    expect(inA.filter((c) => c.note.displayId === 'lrn-kb-b').map((c) => c.note.origin?.kind)).toEqual(['team']);
    expect(inB.filter((c) => c.note.displayId === 'lrn-kb-b').map((c) => c.note.origin?.kind ?? 'kb')).toEqual(['kb']);
    expect(inB.filter((c) => c.note.displayId === 'lrn-kb-a').map((c) => c.note.origin?.kind)).toEqual(['team']);
    // Each KB's publisher id is private to the state dir.
    const ids = fs.readdirSync(path.join(alice.state, 'team', 'publishers'));
    expect(ids.length).toBeGreaterThanOrEqual(2);
    for (const f of ids) expect(fs.statSync(path.join(alice.state, 'team', 'publishers', f)).mode & 0o077).toBe(0);
  });
});
