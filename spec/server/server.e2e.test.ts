/**
 * The recall server as clients use it (built bundles, real processes): answers are the same as
 * in-process ones, a write is visible to the very next recall, and a hung, dead or foreign server
 * never costs a hook its envelope.
 */
import { describe, it, expect, afterEach, beforeEach } from '@jest/globals';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { waitFor } from '../helpers/wait.js';
import { ask } from '../../sources/recall-server/ask.js';
import { PROTOCOL_VERSION, buildStamp, serverSocketPath, type ServerAnswer } from '../../sources/recall-server/protocol.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUNDLE = path.join(repo, 'dist', 'bundle');
const hookPath = (name: string): string => path.join(repo, 'dist', 'hooks', `${name}.js`);

let kb: TempKb;
let server: ChildProcess | null = null;

function env(k: TempKb, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: k.state,
    REFLECT_STATE_DIR: k.state,
    GLOBAL_LEARNINGS_PATH: k.root,
    ...driverEnv(),
    ...extra,
  };
}

async function startServer(e: Record<string, string>, bundle = BUNDLE): Promise<string> {
  const socket = serverSocketPath(e);
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  server = spawn(process.execPath, [path.join(bundle, 'server.mjs'), '--socket', socket], { env: e, stdio: 'ignore' });
  const up = await waitFor(
    async () => {
      const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 500, Date.now() + 1000);
      // Up, and its lookup threads loaded (until then lookups run in the server's thread, by design).
      const l = !('failed' in out) && out.answer.ok && 'status' in out.answer ? out.answer.status.lookups : undefined;
      return !('failed' in out) && (!l || l.ready === l.threads || driverEnv()['RECALL_SQLITE_DRIVER'] === 'wasm');
    },
    20_000,
    50,
  );
  if (!up) throw new Error('server did not start');
  return socket;
}

async function requests(socket: string): Promise<number> {
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 1000, Date.now() + 2000);
  if ('failed' in out || !out.answer.ok || !('status' in out.answer)) throw new Error('no status');
  return out.answer.status.requests;
}

/**
 * Index lookups the server ran on its worker threads and in its own thread. On a WAL index (not the
 * WebAssembly driver, for which it starts none) every lookup goes to a thread and none falls back, so
 * equal answers below are the threads' answers.
 */
async function expectThreadedLookups(socket: string): Promise<void> {
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 1000, Date.now() + 2000);
  if ('failed' in out || !out.answer.ok || !('status' in out.answer)) throw new Error('no status');
  const l = out.answer.status.lookups;
  // The WebAssembly driver's indexes have no WAL: the server starts no lookup threads.
  if (driverEnv()['RECALL_SQLITE_DRIVER'] === 'wasm') expect(l).toBeNull();
  else
    expect({ answered: (l?.answered ?? 0) > 0, refused: l?.refused, last: l?.lastRefusal }).toEqual({
      answered: true,
      refused: 0,
      last: null,
    });
}

function cliViaServer(socket: string, e: Record<string, string>, argv: string[]): Promise<ServerAnswer> {
  return ask(socket, { op: 'cli', v: PROTOCOL_VERSION, argv, env: e, cwd: kb.root, isTty: false }, 2000, Date.now() + 20_000).then((o) => {
    if ('failed' in o) throw new Error(`server failed: ${o.failed}`);
    return o.answer;
  });
}

function hook(name: string, stdin: string, e: Record<string, string>): { stdout: string; code: number | null; ms: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [hookPath(name)], { input: stdin, env: e, cwd: os.tmpdir(), encoding: 'utf8', timeout: 30_000 });
  return { stdout: r.stdout, code: r.status, ms: performance.now() - t0 };
}

beforeEach(() => {
  kb = tempKb();
  for (let i = 0; i < 30; i += 1)
    kb.write(
      `documents/n${i}.md`,
      noteText(`n${i}`, `postgres pool note ${i}`, `connection pool exhausted in tests, case ${i}; pgbouncer timeout`),
    );
  kb.write(
    'documents/redis.md',
    noteText('redis-evict', 'redis cache eviction under memory pressure', 'maxmemory policy allkeys-lru drops hot keys'),
  );
});

afterEach(() => {
  server?.kill();
  server = null;
  kb.cleanup();
});

describe('recall server', () => {
  it('sees a note written, edited or deleted immediately before the recall, every time', async () => {
    const e = env(kb);
    const socket = await startServer(e);
    const found = async (word: string): Promise<string[]> => {
      const a = await cliViaServer(socket, e, ['--kb', kb.root, word, '--format', 'json', '--no-cache', '--floor', '0']);
      if (!a.ok || !('stdout' in a)) throw new Error(JSON.stringify(a));
      return (JSON.parse(a.stdout) as { results: { id: string }[] }).results.map((r) => r.id);
    };
    await found('postgres');
    const st = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 1000, Date.now() + 2000);
    // The watcher vouches for this KB: recalls are answered without comparing every file.
    expect(!('failed' in st) && st.answer.ok && 'status' in st.answer && st.answer.status.kbs.map((k) => k.watching)).toEqual([true]);
    for (let i = 0; i < 40; i += 1) {
      const word = `zqxword${i}`;
      kb.write(`documents/fresh-${i}.md`, noteText(`fresh-${i}`, `${word} appears here`, `only this note says ${word}`));
      expect(await found(word)).toContain(`fresh-${i}`);
      // An edit in place (same file, new words) and a deletion are just as visible.
      kb.write(`documents/fresh-${i}.md`, noteText(`fresh-${i}`, `edited ${i}`, `now it says qqvedit${i}`));
      expect(await found(`qqvedit${i}`)).toContain(`fresh-${i}`);
      kb.remove(`documents/fresh-${i}.md`);
      expect(await found(`qqvedit${i}`)).not.toContain(`fresh-${i}`);
    }
    // A new subfolder and a note in it: watched from then on.
    kb.write('documents/sub/deep.md', noteText('deep', 'zzdeepword in a new folder', 'deep body'));
    expect(await found('zzdeepword')).toContain('deep');
    kb.write('documents/sub/deeper.md', noteText('deeper', 'zzdeeperword later', 'deeper body'));
    expect(await found('zzdeeperword')).toContain('deeper');
    await expectThreadedLookups(socket);
  }, 120_000);

  it('answers the CLI and every hook exactly as the in-process path does', async () => {
    // Floors off: every hook has something to inject, so equal answers are not just equally empty.
    const floors = {
      RECALL_FLOOR_SESSION_START: '0',
      RECALL_FLOOR_USER_PROMPT: '0',
      RECALL_FLOOR_SUBAGENT: '0',
      REFLECT_RECALL_MIN_OVERLAP: '0',
    };
    const e = env(kb, floors);
    const socket = await startServer(e);
    const project = path.join(kb.state, 'proj-postgres-pool');
    fs.mkdirSync(project, { recursive: true });
    spawnSync('git', ['-C', project, 'init', '-q']);
    const argv = ['--kb', kb.root, 'postgres connection pool exhausted', '--format', 'json', '--no-cache'];
    const inProc = spawnSync(process.execPath, [path.join(BUNDLE, 'recall.mjs'), ...argv], { env: e, cwd: kb.root, encoding: 'utf8' });
    const via = await cliViaServer(socket, e, argv);
    const strip = (s: string): unknown => JSON.parse(s.replace(/"ms":\s*[\d.]+/g, '"ms":0'));
    expect(via.ok && 'stdout' in via && strip(via.stdout)).toEqual(strip(inProc.stdout));
    const cases: [string, (tag: string) => string][] = [
      ['session-start', () => JSON.stringify({ hook_event_name: 'SessionStart', cwd: project })],
      ['user-prompt-submit', (tag) => JSON.stringify({ session_id: `s-${tag}`, prompt: 'postgres connection pool exhausted in tests' })],
      ['subagent-start', () => JSON.stringify({ agent_type: 'reviewer', prompt: 'check the redis cache eviction policy' })],
    ];
    for (const [name, input] of cases) {
      const before = await requests(socket);
      const served = hook(name, input('server'), e);
      expect(await requests(socket)).toBe(before + 1);
      const alone = hook(name, input('alone'), { ...e, RECALL_NO_SERVER: '1' });
      expect(await requests(socket)).toBe(before + 1);
      expect(served.code).toBe(0);
      expect(JSON.parse(served.stdout)).toEqual(JSON.parse(alone.stdout));
      expect(served.stdout).toContain('recall-notes');
    }
    await expectThreadedLookups(socket);
  }, 120_000);

  it('falls back in-process within its budget when the server accepts nothing, and when its socket is dead', async () => {
    const e = env(kb, { REFLECT_IDLE_TIMEOUT: '5' });
    const socket = serverSocketPath(e);
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    const input = JSON.stringify({ prompt: 'postgres connection pool exhausted in tests' });
    const alone = hook('user-prompt-submit', input, { ...e, RECALL_NO_SERVER: '1' });
    // A server that takes connections and never answers (hung in some other work).
    const hung = net.createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(socket, r));
    try {
      const out = hook('user-prompt-submit', input, e);
      expect(out.code).toBe(0);
      expect(JSON.parse(out.stdout)).toEqual(JSON.parse(alone.stdout));
      // The accept budget (200 ms) on top of an in-process run, with room for a busy machine.
      expect(out.ms).toBeLessThan(alone.ms + 200 + 1500);
    } finally {
      await new Promise((r) => hung.close(r));
    }
    // A socket file nobody listens on: answered in-process at once, and a server started for next time.
    spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(fs.statSync(socket).isSocket()).toBe(true);
    const dead = hook('user-prompt-submit', input, e);
    expect(JSON.parse(dead.stdout)).toEqual(JSON.parse(alone.stdout));
    const up = await waitFor(
      async () => !('failed' in (await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 500, Date.now() + 1000))),
      20_000,
    );
    expect(up).toBe(true);
    expect(spawnSync(process.execPath, [path.join(BUNDLE, 'recall.mjs'), 'daemon', 'stop'], { env: e, encoding: 'utf8' }).stdout).toContain(
      'recall server: stopped',
    );
  }, 60_000);

  it('never talks to a socket of another user', async () => {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
    const e = env(kb);
    const socket = await startServer(e);
    fs.chownSync(socket, 65534, 65534);
    const before = server!.pid;
    const out = hook('user-prompt-submit', JSON.stringify({ prompt: 'postgres connection pool exhausted in tests' }), e);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('recall-notes');
    fs.chownSync(socket, 0, 0);
    expect(await requests(socket)).toBe(0);
    expect(server!.pid).toBe(before);
  }, 60_000);

  it('serves callers of its own build, and declines and stops for a caller of another build (recall updated)', async () => {
    const e = env(kb);
    const socket = await startServer(e);
    const own = buildStamp(path.join(BUNDLE, 'server.mjs'));
    expect(own).toMatch(/^[0-9a-f]{32}$/);
    // A second install of the same build (another plugin folder) is the same build: one server serves both.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bundle-copy-'));
    fs.cpSync(BUNDLE, copy, { recursive: true });
    expect(buildStamp(path.join(copy, 'server.mjs'))).toBe(own);
    fs.rmSync(copy, { recursive: true, force: true });
    const req = { op: 'cli' as const, v: PROTOCOL_VERSION, argv: ['pgbouncer', '--format', 'json'], env: e, cwd: kb.root, isTty: false };
    const same = await ask(socket, { ...req, build: own! }, 2000, Date.now() + 20_000);
    expect('failed' in same ? same.failed : same.answer).toMatchObject({ ok: true, code: 0 });
    const exited = new Promise<number | null>((r) => server!.once('exit', (code) => r(code)));
    const other = await ask(socket, { ...req, build: `${own!}-rebuilt` }, 2000, Date.now() + 20_000);
    expect('failed' in other ? other.failed : other.answer).toEqual({
      ok: false,
      decline: expect.stringMatching(/another build of recall/) as unknown as string,
    });
    await expect(exited).resolves.toBe(0);
  }, 30_000);

  it('declines and stops once the install it was started from is removed, though a caller of its build remains', async () => {
    const e = env(kb);
    // A second install of this build (beside the first, so its packages resolve as the first's do).
    const copy = path.join(repo, 'dist', `.bundle-copy-${process.pid}`);
    fs.cpSync(BUNDLE, copy, { recursive: true });
    try {
      const socket = await startServer(e, copy);
      const own = buildStamp(path.join(BUNDLE, 'server.mjs'))!;
      const req = {
        op: 'cli' as const,
        v: PROTOCOL_VERSION,
        argv: ['pgbouncer', '--format', 'json'],
        env: e,
        cwd: kb.root,
        isTty: false,
        build: own,
      };
      const served = await ask(socket, req, 2000, Date.now() + 20_000);
      expect('failed' in served ? served.failed : served.answer).toMatchObject({ ok: true, code: 0 });
      const exited = new Promise<number | null>((r) => server!.once('exit', (code) => r(code)));
      // The plugin of that folder uninstalled: its lazily loaded modules are gone with it.
      fs.rmSync(copy, { recursive: true, force: true });
      const after = await ask(socket, req, 2000, Date.now() + 20_000);
      expect('failed' in after ? after.failed : after.answer).toEqual({
        ok: false,
        decline: expect.stringMatching(/another build of recall/) as unknown as string,
      });
      await expect(exited).resolves.toBe(0);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }, 30_000);

  it('stops when its state dir is removed', async () => {
    const e = env(kb);
    await startServer(e);
    const exited = new Promise<number | null>((r) => server!.once('exit', (code) => r(code)));
    fs.rmSync(kb.state, { recursive: true, force: true });
    await expect(exited).resolves.toBe(0);
  }, 20_000);
});
