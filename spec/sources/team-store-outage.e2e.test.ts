/**
 * The team store when its server goes away: a server that stops or freezes mid-pull leaves the shard
 * consistent, the live arm degrades within its timeout, and TLS settings reach the connection.
 * These tests stop and freeze a server, so they start a private cluster (server binaries needed).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshTeam } from '../helpers/pg.js';
import { findPgBin, startCluster, type Cluster } from '../../scripts/pg-cluster.js';
import { teamInit, teamStatus } from '../../cli/team/team.js';
import { noteText } from '../helpers/kb.js';
import { provenancePath } from '../../sources/team/shard.js';
import { machine, pull, push, recall, server, write, stopTeam, type Machine } from './team-e2e.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-outage-'));
// The shared test server (started by team-e2e.ts when none was given) is not used here: stop it.
afterAll(() => stopTeam(base));

const ownServer = findPgBin() !== null ? describe : describe.skip;
if (findPgBin() === null && server)
  console.warn('team store stop/freeze tests SKIPPED: no PostgreSQL server binaries here to start a private cluster');

ownServer('team store when the server goes away', () => {
  let own: Cluster;
  let t: Awaited<ReturnType<typeof freshTeam>>;
  let writer: Machine;
  let reader: Machine;

  beforeAll(async () => {
    // A private cluster: these tests stop and freeze the server (and it speaks TLS).
    own = await startCluster({ ssl: true });
    t = await freshTeam({ adminUrl: own.url, cluster: own, host: '127.0.0.1', port: own.port }, ['w', 'r']);
    writer = machine(base, 'writer', t.roles['w']!.url);
    reader = machine(base, 'reader', t.roles['r']!.url);
    await teamInit(
      { url: t.dbUrl, grant: [t.roles['w']!.name, t.roles['r']!.name], grantRead: [], shareAll: [] },
      { env: { ...writer.env, RECALL_TEAM_URL: '' }, cwd: writer.kb, warn: () => undefined },
    );
    for (let i = 0; i < 50; i += 1)
      write(writer, `documents/n${i}.md`, noteText(`lrn-n${i}`, `note ${i} about postgres replica lag ${i}`, `body ${i}`));
    expect((await push(writer, { all: true })).counts.published).toBe(50);
  }, 120_000);

  afterAll(() => own?.stop());

  it('TLS settings from the URL or the PG variables reach the connection', async () => {
    const st = async (env: Record<string, string>) => (await teamStatus({ ...reader.env, ...env }, { probe: true })).server!;
    const url = new URL(t.roles['r']!.url);
    url.hostname = 'localhost';
    expect(await st({ RECALL_TEAM_URL: url.toString(), PGSSLMODE: 'verify-full', PGSSLROOTCERT: own.caFile! })).toMatchObject({
      reachable: true,
    });
    // Without the CA the self-signed certificate is refused; `require` encrypts without checking it.
    expect(await st({ RECALL_TEAM_URL: url.toString(), PGSSLMODE: 'verify-full' })).toMatchObject({
      reachable: false,
      error: expect.stringMatching(/self.signed|certificate/i),
    });
    expect(await st({ RECALL_TEAM_URL: url.toString(), PGSSLMODE: 'require' })).toMatchObject({ reachable: true });
    expect(
      await st({ RECALL_TEAM_URL: `${url.toString()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(own.caFile!)}` }),
    ).toMatchObject({ reachable: true });
    const { openStore } = await import('../../sources/team/store.js');
    const { loadTeamSettings } = await import('../../sources/team/settings.js');
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
      expect(side.file_sha256).toBe(
        createHash('sha256')
          .update(fs.readFileSync(path.join(docs, n)))
          .digest('hex'),
      );
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
    let res = await recall(
      reader,
      'postgres replica lag',
      { includeQuarantined: true },
      { RECALL_TEAM_ARM: '1', RECALL_TEAM_TIMEOUT: '1' },
    );
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
