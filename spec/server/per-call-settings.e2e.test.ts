/**
 * A setting given with one call never changes what the recall server answers later calls: a recall
 * run with `RECALL_TEAM_NOTES=0` leaves the pulled team notes out of that recall only, and the next
 * recalls and prompt hooks find them again, as in-process ones do (RECALL_NO_SERVER=1). The spec
 * alternates the setting through one warm server and compares every answer with the in-process one.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { driverEnv } from '../helpers/driver.js';
import { noteText } from '../helpers/kb.js';
import { ask } from '../../sources/recall-server/ask.js';
import { PROTOCOL_VERSION, serverSocketPath } from '../../sources/recall-server/protocol.js';
import { applyToShard, emptySummary, projectNote, type StoreRow } from '../../sources/team/shard.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIENT = path.join(repo, 'dist', 'bundle', 'client.mjs');

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-percall-'));
let server: ChildProcess | null = null;
afterAll(() => {
  server?.kill();
  fs.rmSync(base, { recursive: true, force: true });
});

async function requests(socket: string): Promise<number> {
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 2000, Date.now() + 5000);
  if ('failed' in out || !out.answer.ok || !('status' in out.answer)) throw new Error('no status');
  return out.answer.status.requests;
}

/** A trusted teammate's note in the pulled shard of `state`, as `recall team pull` writes it. */
function pulledNote(state: string, id: string, title: string, body: string): void {
  const row: StoreRow = {
    id,
    revision: 1,
    contentHash: `h-${id}`,
    title,
    body,
    frontmatter: { id, title },
    author: 'bob',
    machine: 'bob-desktop',
    kb: '/kb',
    updatedAt: '2026-11-01T00:00:00.000Z',
    publishedAt: '2026-11-01T00:00:00.000Z',
    head: true,
    state: 'current',
    supersededBy: null,
    retiredBy: null,
    publisher: 'p-bob',
  };
  const projection = projectNote([row], { authors: { bob: { authority: 'advisory', since: '' } } });
  const shard = path.join(state, 'team', 'shard');
  expect(applyToShard(shard, id, projection, 'store-1', emptySummary(), '2026-11-02T00:00:00.000Z')).toBe('written');
}

describe('per-call settings through the recall server', () => {
  it('RECALL_TEAM_NOTES=0 on one call leaves the pulled notes out of that call only', async () => {
    const state = path.join(base, 'state');
    const kb = path.join(base, 'kb');
    fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
    fs.mkdirSync(state);
    fs.writeFileSync(path.join(kb, 'documents', 'own.md'), noteText('lrn-own', 'redis eviction policy', 'use allkeys-lru for caches'));
    pulledNote(state, 'lrn-team-pool', 'postgres connection pool exhausted', 'one engine per test session');
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: state,
      REFLECT_STATE_DIR: state,
      REFLECT_NO_DAEMON: '1',
      GLOBAL_LEARNINGS_PATH: kb,
      RECALL_FLOOR: '0',
      RECALL_FLOOR_USER_PROMPT: '0',
      ...driverEnv(),
    };
    const socket = serverSocketPath(env);
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    server = spawn(process.execPath, [path.join(repo, 'dist', 'bundle', 'server.mjs'), '--socket', socket], {
      env,
      cwd: os.tmpdir(),
      stdio: 'ignore',
    });
    let up = false;
    for (let i = 0; i < 400 && !up; i += 1) {
      const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 500, Date.now() + 1000);
      up = !('failed' in out);
      if (!up) await new Promise((r) => setTimeout(r, 50));
    }
    expect(up).toBe(true);
    const run = (args: string[], e: Record<string, string>, input = ''): string => {
      const r = spawnSync(process.execPath, [CLIENT, ...args], { env: e, cwd: base, input, encoding: 'utf8', timeout: 60_000 });
      expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      return r.stdout;
    };
    const ids = (out: string): string[] => (JSON.parse(out) as { results: { id: string }[] }).results.map((r) => r.id);
    const argv = ['recall', 'postgres connection pool exhausted', '--format', 'json', '--no-cache'];
    const hookInput = (s: string): string => JSON.stringify({ session_id: s, prompt: 'postgres connection pool exhausted' });

    let served = await requests(socket);
    const seen: string[] = [];
    for (const [n, teamNotes] of ['1', '0', '1', '1', '0', '0', '1'].entries()) {
      const e = { ...env, RECALL_TEAM_NOTES: teamNotes };
      const viaServer = ids(run(argv, e));
      expect(await requests(socket)).toBe(++served);
      const inProcess = ids(run(argv, { ...e, RECALL_NO_SERVER: '1' }));
      expect({ n, teamNotes, viaServer }).toEqual({ n, teamNotes, viaServer: inProcess });
      expect({ n, teamNotes, found: viaServer.includes('lrn-team-pool') }).toEqual({ n, teamNotes, found: teamNotes === '1' });
      // The prompt hook after each call finds the pulled note (team notes on by default).
      const hook = run(['hook', 'user-prompt-submit'], env, hookInput(`s${n}`));
      expect(await requests(socket)).toBe(++served);
      seen.push(`${teamNotes}:${hook.includes('lrn-team-pool')}`);
    }
    expect(seen).toEqual(['1:true', '0:true', '1:true', '1:true', '0:true', '0:true', '1:true']);
  }, 240_000);
});
