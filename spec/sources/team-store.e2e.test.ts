/**
 * The team store against a real PostgreSQL server: the schema is created, versioned and migrated;
 * note vectors are stored and rank the live search; the password never shows.
 */
import { it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { freshTeam, adminQuery } from '../helpers/pg.js';
import { teamInit, teamPush } from '../../cli/team/team.js';
import { noteText } from '../helpers/kb.js';
import { BIN, repo, allText, io, server, shared, startTeam, stopTeam, suite, write, type Machine } from './team-e2e.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-'));
let team: Awaited<ReturnType<typeof freshTeam>>;
let secrets: string[] = [];
let alice: Machine, bob: Machine, carol: Machine;

suite('team store on PostgreSQL', () => {
  beforeAll(async () => void ({ team, secrets, alice, bob, carol } = await startTeam(base)), 60_000);
  afterAll(() => stopTeam(base));

  it('init is idempotent, versioned, and saves the store without its password', async () => {
    const again = await teamInit(
      { url: team.dbUrl, grant: [], grantRead: [], shareAll: [] },
      { env: { ...alice.env, RECALL_TEAM_URL: '' }, cwd: alice.kb, warn: () => undefined },
    );
    expect(again.applied).toEqual([]);
    expect(again.info.version).toBe(4);
    const saved = fs.readFileSync(path.join(alice.state, 'team', 'config.json'), 'utf8');
    expect(saved).toContain('/team_');
    expect(saved).not.toContain(new URL(team.dbUrl).password);
    const meta = await adminQuery(team.dbUrl, `SELECT v FROM recall.meta WHERE k = 'schema_version'`);
    expect(meta.rows[0].v).toBe('4');
    // A teammate's role (no CREATE right on the database) can run init too: it finds the store up to date.
    const mine = await teamInit({ grant: [], grantRead: [], shareAll: [] }, io(bob));
    expect(mine.applied).toEqual([]);
    expect(fs.readFileSync(path.join(bob.state, 'team', 'config.json'), 'utf8')).not.toContain(team.roles['bob']!.password);
  });

  it('init migrates a store of an older schema version in place, keeping its notes and narrowing what teammates may change', async () => {
    const { openStore, migrate, searchStore, storeInfo } = await import('../../sources/team/store.js');
    const { loadTeamSettings } = await import('../../sources/team/settings.js');
    const env = { ...alice.env, RECALL_TEAM_URL: team.dbUrl, RECALL_TEAM_SCHEMA: 'oldteam' };
    const conn = await openStore(loadTeamSettings(env, alice.state));
    const aliceRole = team.roles['alice']!.name;
    const bobRole = team.roles['bob']!.name;
    try {
      expect((await migrate(conn, { write: [], read: [] }, 2)).applied).toEqual([1, 2]);
      await expect(storeInfo(conn)).rejects.toThrow(/version 2: run `recall team init` to migrate it to 4/);
      // What a version-2 store granted teammates: UPDATE on the whole table.
      await conn.query(`GRANT USAGE ON SCHEMA oldteam TO ${aliceRole}, ${bobRole}`);
      await conn.query(`GRANT SELECT, INSERT, UPDATE ON oldteam.notes TO ${aliceRole}, ${bobRole}`);
      await conn.query(`GRANT SELECT ON oldteam.meta TO ${aliceRole}, ${bobRole}`);
    } finally {
      await conn.close();
    }
    // A note published by a version-2 client (no publisher id).
    const asRole = (role: string, sql: string) => adminQuery(team.roles[role]!.url, sql);
    await asRole(
      'bob',
      `INSERT INTO oldteam.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head)
       VALUES ('lrn-old', 1, 'h', 'terraform state lock stuck', 'force-unlock', '{}', 'old-box', '/old', '2026-01-01T00:00:00Z', true)`,
    );
    // A store before version 4 took a row of any size.
    await asRole(
      'bob',
      `INSERT INTO oldteam.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head)
       VALUES ('lrn-old-huge', 1, 'h', 'huge', repeat('x', 2000000), '{}', 'old-box', '/old', '2026-01-01T00:00:00Z', true)`,
    );
    // Before the migration alice can take bob's note off the head.
    expect((await asRole('alice', `UPDATE oldteam.notes SET head = head WHERE author <> current_user`)).rowCount).toBe(2);
    const up = await teamInit({ grant: [], grantRead: [], shareAll: [] }, { env, cwd: alice.kb, warn: () => undefined });
    expect(up.applied).toEqual([3, 4]);
    // Version 4 caps a new row's content at 1 MiB; the row published before it stays, and its author can still retire it.
    await expect(
      asRole(
        'bob',
        `INSERT INTO oldteam.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, updated_at, head)
         VALUES ('lrn-new-huge', 1, 'h', 'huge', repeat('x', 2000000), '{}', 'old-box', '/old', now(), true)`,
      ),
    ).rejects.toThrow(/notes_size/);
    expect((await asRole('bob', `UPDATE oldteam.notes SET state = 'forgotten' WHERE id = 'lrn-old-huge'`)).rowCount).toBe(1);
    // After it: none of bob's rows is alice's to change, and even bob may change only the lifecycle columns.
    expect((await asRole('alice', `UPDATE oldteam.notes SET head = false WHERE head AND author <> current_user`)).rowCount).toBe(0);
    await expect(asRole('bob', `UPDATE oldteam.notes SET embed_model = 'x' WHERE id = 'lrn-old'`)).rejects.toThrow(/permission denied/);
    const privs = await adminQuery(
      team.dbUrl,
      `SELECT has_table_privilege($1, 'oldteam.notes', 'UPDATE') AS whole, has_column_privilege($1, 'oldteam.notes', 'state', 'UPDATE') AS state`,
      [aliceRole],
    );
    expect(privs.rows[0]).toEqual({ whole: false, state: true });
    const again = await openStore(loadTeamSettings(env, alice.state));
    try {
      expect((await storeInfo(again)).version).toBe(4);
      expect((await searchStore(again, 'terraform lock', 5, 'elsewhere')).map((h) => h.id)).toEqual(['lrn-old']);
      expect((await again.query<{ publisher: string | null }>(`SELECT publisher FROM oldteam.notes`))[0]!.publisher).toBeNull();
    } finally {
      await again.close();
    }
    // init saved this schema in alice's config: put hers back.
    await teamInit({ grant: [], grantRead: [], shareAll: [] }, io(alice, { RECALL_TEAM_SCHEMA: 'recall' }));
  });

  it('push stores note vectors when an embedding model is installed', async () => {
    const models = path.join(base, 'models');
    fs.cpSync(path.join(repo, 'spec', 'fixtures', 'models'), models, { recursive: true });
    write(alice, 'documents/vec.md', shared('lrn-vec', 'kafka consumer lag after rebalance', 'pin the partition assignment strategy'));
    const r = await teamPush(
      { kb: alice.kb, global: false, allBranches: false, all: false },
      io(alice, { REFLECT_MODELS_DIR: models, REFLECT_EMBED_MODEL: 'fixture/tiny-embed', REFLECT_NO_DAEMON: '1' }),
    );
    expect(r.vectors).toBe('vectors from fixture/tiny-embed');
    const row = (
      await adminQuery(team.dbUrl, `SELECT embed_model, array_length(embedding, 1) AS dim FROM recall.notes WHERE id = 'lrn-vec' AND head`)
    ).rows[0];
    expect(row.embed_model).toBe('fixture/tiny-embed');
    expect(row.dim).toBeGreaterThan(0);
  });

  it('the store ranks notes by note vector when the query has one (pgvector on the server when it has it, else in the client)', async () => {
    const { openStore, pushBatch, searchStore, storeInfo } = await import('../../sources/team/store.js');
    const { loadTeamSettings } = await import('../../sources/team/settings.js');
    const conn = await openStore(loadTeamSettings(alice.env, alice.state));
    try {
      const info = await storeInfo(conn);
      // Debian 12 has no pgvector package: usually the client scores; a server with the extension scores itself.
      const available = (await adminQuery(team.dbUrl, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS ok`))
        .rows[0].ok as boolean;
      expect(info.pgvector).toBe(available);
      const item = (id: string, embedding: number[]) => ({
        id,
        contentHash: `hash-${id}`,
        title: 'flaky selenium grid session',
        body: 'grid session',
        frontmatter: { id },
        createdAt: null,
        updatedAt: '2026-11-01T00:00:00Z',
        embedModel: 'm-test',
        embedding,
      });
      await pushBatch(
        conn,
        { machine: 'alice-laptop', kb: '/v', publisher: 'p-vectors' },
        [item('lrn-v1', [1, 0, 0]), item('lrn-v2', [0, 1, 0])],
        [],
        info.pgvector,
      );
      const ids = async (q: string, v: number[]) =>
        (await searchStore(conn, q, 5, 'carol-laptop', { model: 'm-test', query: v, pgvector: info.pgvector })).map((h) => h.id);
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
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(BIN, args, { env: { ...carol.env, ...env }, cwd: carol.kb, encoding: 'utf8', timeout: 30_000 });
    const wrongPw = run(['team', 'pull'], { RECALL_TEAM_URL: bad });
    expect(wrongPw.status).toBe(1);
    expect(wrongPw.stderr).toMatch(/password authentication failed/);
    const down = run(['team', 'push', '--kb', carol.kb], { RECALL_TEAM_URL: `postgres://u:${encodeURIComponent(pw)}@127.0.0.1:1/x` });
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/ECONNREFUSED/);
    const status = run(['team', 'status'], { RECALL_TEAM_URL: `postgres://u:${encodeURIComponent(pw)}@127.0.0.1:1/x` });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/server: unreachable/);
    // A KB with a note, so the recall runs its arms (the team arm among them).
    write(carol, 'documents/pool.md', noteText('lrn-carol-pool', 'postgres pool sizing', 'size the pool to the cores'));
    const live = run(['postgres pool', '--kb', carol.kb, '--verbose', '--format', 'json'], {
      RECALL_TEAM_URL: `postgres://u:${encodeURIComponent(pw)}@127.0.0.1:1/x`,
      RECALL_TEAM_ARM: '1',
    });
    expect(live.status).toBe(0);
    expect(JSON.parse(live.stdout).arms.find((a: { arm: string }) => a.arm === 'team').status).toBe('error');
    const everything = [wrongPw, down, status, live].map((r) => r.stdout + r.stderr).join('\n') + allText(carol.state);
    for (const s of [...secrets, encodeURIComponent(pw)]) expect(everything).not.toContain(s);
  });
});
