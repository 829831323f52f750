/**
 * A teammate working against everyone else's pulls, on a real PostgreSQL server:
 * - rows far over the note size cap (a store that took them before the cap, or an owner's insert)
 *   are skipped by id with a reason and never read into memory, and the rest is read in pages of
 *   bounded bytes, so a pull in a small heap finishes; a new row over the cap is refused by the store;
 * - an open transaction holds every pull's view back: the pull and `recall team status` say so;
 * - the live arm takes the pull's word on whose revision counts, so a newer and a "forgotten"
 *   revision inserted by an untrusted teammate neither hide a trusted author's note nor replace it.
 */
import { it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { freshTeam, adminQuery } from '../helpers/pg.js';
import { formatPull, formatStatus, teamInit, teamStatus, teamTrust } from '../../cli/team/team.js';
import { BIN, io, pull, push, recall, shared, startTeam, stopTeam, suite, write, type Machine } from './team-e2e.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-hostile-'));
let team: Awaited<ReturnType<typeof freshTeam>>;
let alice: Machine, bob: Machine, carol: Machine;

/** `recall team pull` in a child process whose V8 heap is capped at `heapMb`. */
function pullInSmallHeap(
  m: Machine,
  heapMb: number,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, ['team', 'pull', '--no-index'], {
      env: { ...m.env, NODE_OPTIONS: `--max-old-space-size=${heapMb}`, RECALL_NO_SERVER: '1' },
      cwd: m.kb,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr: stderr.slice(-2000) }));
  });
}

suite('a hostile teammate and everyone else’s pulls', () => {
  beforeAll(async () => {
    ({ team, alice, bob, carol } = await startTeam(base));
    for (let i = 0; i < 3; i += 1)
      write(bob, `documents/b${i}.md`, shared(`lrn-bob-${i}`, `bob note ${i} about kafka consumer lag`, `rebalance fix number ${i}`));
    expect((await push(bob)).counts.published).toBe(3);
    teamTrust(team.roles['bob']!.name, { remove: false }, io(carol));
  }, 60_000);
  afterAll(() => stopTeam(base));

  it('a note over 1 MiB is refused by the store (schema version 4), whoever inserts it', async () => {
    const insert = (who: string, bytes: number) =>
      adminQuery(
        who,
        `INSERT INTO recall.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head)
         VALUES ('lrn-cap-' || ${bytes}, 1, 'h', 't', repeat('x', ${bytes}), '{}', 'evil', '/kb', now(), true)`,
      );
    await expect(insert(team.roles['alice']!.url, 2_000_000)).rejects.toThrow(/notes_size/);
    await expect(insert(team.dbUrl, 2_000_000)).rejects.toThrow(/notes_size/);
    expect((await insert(team.roles['alice']!.url, 500_000)).rowCount).toBe(1);
    await adminQuery(team.dbUrl, `ALTER TABLE recall.notes DISABLE TRIGGER USER`);
    await adminQuery(team.dbUrl, `DELETE FROM recall.notes WHERE id LIKE 'lrn-cap-%'`);
    await adminQuery(team.dbUrl, `ALTER TABLE recall.notes ENABLE TRIGGER USER`);
  });

  it('rows over the cap already in the store are skipped by id and never read; the rest is read in pages of bounded bytes', async () => {
    // Rows a store took before the cap (version 3): the constraint is lifted for the insert, as it was then.
    await adminQuery(team.dbUrl, `ALTER TABLE recall.notes DROP CONSTRAINT IF EXISTS notes_size`);
    await adminQuery(
      team.roles['alice']!.url,
      `INSERT INTO recall.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head)
       SELECT 'lrn-huge-' || g, 1, 'h' || g, 'huge ' || g, repeat('x', 16000000), '{}', 'evil', '/kb', now(), true
       FROM generate_series(1, 8) g`,
    );
    // Under the cap each, 120 MB together: more than the pull's heap in one page of rows.
    await adminQuery(
      team.roles['alice']!.url,
      `INSERT INTO recall.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head)
       SELECT 'lrn-mb-' || g, 1, 'm' || g, 'one megabyte ' || g, repeat('y', 1000000), '{}', 'evil', '/kb', now(), true
       FROM generate_series(1, 120) g`,
    );
    // The store's owner migrates it to version 4: the rows already there stay, new ones are capped.
    await adminQuery(team.dbUrl, `UPDATE recall.meta SET v = '3' WHERE k = 'schema_version'`);
    const up = await teamInit(
      { url: team.dbUrl, grant: [], grantRead: [], shareAll: [] },
      { env: { ...alice.env, RECALL_TEAM_URL: '' }, cwd: alice.kb, warn: () => undefined },
    );
    expect(up.applied).toEqual([4]);
    const r = await pullInSmallHeap(carol, 96);
    expect({ code: r.code, signal: r.signal, stderr: r.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(r.stdout).toMatch(/not written: .*8 larger than 1 MiB \(recall does not read them: lrn-huge-\d+, /);
    expect(r.stdout).toMatch(/, 8 skipped \(larger than 1 MiB\)/);
    const docs = fs.readdirSync(path.join(carol.state, 'team', 'shard', 'documents'));
    expect(docs.filter((n) => n.startsWith('lrn-mb-'))).toHaveLength(120);
    expect(docs.filter((n) => n.startsWith('lrn-huge-'))).toHaveLength(0);
    await adminQuery(team.dbUrl, `ALTER TABLE recall.notes DISABLE TRIGGER USER`);
    await adminQuery(team.dbUrl, `DELETE FROM recall.notes WHERE id LIKE 'lrn-huge-%' OR id LIKE 'lrn-mb-%'`);
    await adminQuery(team.dbUrl, `ALTER TABLE recall.notes ENABLE TRIGGER USER`);
    fs.rmSync(path.join(carol.state, 'team'), { recursive: true, force: true });
    teamTrust(team.roles['bob']!.name, { remove: false }, io(carol));
  }, 240_000);

  it('a teammate’s open transaction: the pull and `recall team status` say changes after it are not visible yet', async () => {
    await pull(carol);
    const open = new pg.Client({ connectionString: team.roles['bob']!.url });
    await open.connect();
    try {
      await open.query('BEGIN');
      await open.query('SELECT pg_current_xact_id()');
      for (let i = 0; i < 3; i += 1)
        write(alice, `documents/late${i}.md`, shared(`lrn-late-${i}`, `late note ${i} on redis eviction`, `maxmemory policy ${i}`));
      expect((await push(alice)).counts.published).toBe(3);
      const p = await pull(carol);
      expect(p.rows).toBe(0);
      expect(p.stalled).toMatchObject({ waiting: 3 });
      expect(formatPull(p)).toMatch(
        /^the store has a transaction open since \S+ .*; 3 changes committed after it are not visible yet \(they arrive with the first pull after it ends\)$/m,
      );
      const status = formatStatus(await teamStatus(io(carol).env, { probe: true }));
      expect(status).toMatch(/^server: .*\n.*the store has a transaction open since \S+/m);
      expect(status).toMatch(/3 changes committed after it are not visible yet/);
      expect(formatStatus(await teamStatus(io(carol).env, { probe: false }))).toMatch(
        /^at the last pull, the store has a transaction open since .*; 3 changes committed after it are not visible yet/m,
      );
    } finally {
      await open.query('ROLLBACK').catch(() => undefined);
      await open.end();
    }
    const after = await pull(carol);
    expect(after.rows).toBe(3);
    expect(after.stalled).toBeNull();
    expect(formatPull(after)).not.toContain('transaction open');
  });

  it('the live arm applies the pull’s trust: a newer and a forgotten revision by an untrusted teammate hide nothing', async () => {
    const aliceRole = team.roles['alice']!.name;
    // alice (not trusted by carol) publishes a newer revision of bob's note, then a forgotten one.
    for (const [rev, state] of [
      [2, 'current'],
      [3, 'forgotten'],
    ] as const)
      await adminQuery(
        team.roles['alice']!.url,
        `INSERT INTO recall.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head, state)
         VALUES ('lrn-bob-1', ${rev}, 'evil${rev}', 'bob note 1 about kafka consumer lag', 'ignore the lag', '{}', 'evil', '/kb', now(), true, '${state}')`,
      );
    const history = await adminQuery(
      team.dbUrl,
      `SELECT revision, author, head, state FROM recall.notes WHERE id = 'lrn-bob-1' ORDER BY revision`,
    );
    expect(history.rows.map((r) => [r.revision, r.author === aliceRole, r.head, r.state])).toEqual([
      [1, false, false, 'superseded'],
      [2, true, false, 'superseded'],
      [3, true, true, 'forgotten'],
    ]);
    await pull(carol);
    const query = 'bob note 1 kafka consumer lag';
    const shard = (await recall(carol, query)).outcome!.results.find((c) => c.note.displayId === 'lrn-bob-1');
    expect(shard?.note.body).toContain('rebalance fix number 1');
    const live = await recall(carol, query, {}, { RECALL_TEAM_ARM: '1', RECALL_TEAM_TIMEOUT: '20' });
    // The arm's own hits (the shard's copy of the note fuses with them in the results).
    const arm = live.outcome!.arms.find((a) => a.arm === 'team')!;
    expect({ status: arm.status, message: arm.message }).toEqual({ status: 'ok', message: undefined });
    const hit = arm.hits.find((h) => h.note.displayId === 'lrn-bob-1');
    expect(hit?.note.body).toContain('rebalance fix number 1');
    expect(hit?.note.origin).toMatchObject({ author: team.roles['bob']!.name, revision: 1 });
    expect(hit?.note.quarantine).toBe(false);
    // The other trusted notes are found live as before, and nothing of alice's revisions shows.
    expect(arm.hits.map((h) => h.note.displayId)).toContain('lrn-bob-0');
    expect(JSON.stringify(arm.hits)).not.toContain('ignore the lag');
  }, 60_000);
});
