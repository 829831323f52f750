/**
 * Relative path settings mean the caller's folder whichever process answers: a recall and a hook
 * run with `GLOBAL_LEARNINGS_PATH=kb` and `REFLECT_MODELS_DIR=models` answer the same through the
 * recall server (started in another folder) as in their own process (RECALL_NO_SERVER=1), and so
 * does a recall run with each path setting of the settings table (and each other path variable
 * recall reads) set to a relative path, one at a time.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { driverEnv } from '../helpers/driver.js';
import { noteText } from '../helpers/kb.js';
import { ask } from '../../sources/recall-server/ask.js';
import { PROTOCOL_VERSION, serverSocketPath } from '../../sources/recall-server/protocol.js';
import { absolutePathSettings, PATH_SETTINGS } from '../../core/path-settings.js';
import { SETTINGS } from '../../core/settings/index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIENT = path.join(repo, 'dist', 'bundle', 'client.mjs');

let base = '';
let server: ChildProcess | null = null;
afterEach(() => {
  server?.kill();
  server = null;
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

async function requests(socket: string): Promise<number> {
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 2000, Date.now() + 5000);
  if ('failed' in out || !out.answer.ok || !('status' in out.answer)) throw new Error('no status');
  return out.answer.status.requests;
}

/** Start a recall server in a folder that is not the callers', wait until it answers. */
async function startServer(env: Record<string, string>): Promise<string> {
  const socket = serverSocketPath(env);
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  server = spawn(process.execPath, [path.join(repo, 'dist', 'bundle', 'server.mjs'), '--socket', socket], {
    env,
    cwd: os.tmpdir(),
    stdio: 'ignore',
  });
  for (let i = 0; i < 400; i += 1) {
    const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 500, Date.now() + 1000);
    if (!('failed' in out)) return socket;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the recall server did not answer');
}

describe('relative path settings', () => {
  it('are every path and path-list setting of the settings table, and the other path variables recall reads', () => {
    const fromTable = SETTINGS.filter((s) => s.path || s.list).map((s) => s.env);
    expect(fromTable).toEqual(expect.arrayContaining(['RECALL_KBS', 'GLOBAL_LEARNINGS_PATH', 'REFLECT_MODELS_DIR']));
    expect(PATH_SETTINGS).toEqual(expect.arrayContaining([...fromTable, 'CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'RECALL_CONFIG']));
    // Each path of a list is made absolute; empty entries stay empty.
    expect(absolutePathSettings({ RECALL_KBS: 'a:/abs:~/h:' }, '/w')['RECALL_KBS']).toBe('/w/a:/abs:~/h:');
  });

  it('are made absolute against the caller, never the server', () => {
    expect(
      absolutePathSettings(
        {
          REFLECT_MODELS_DIR: 'spec/fixtures/models',
          GLOBAL_LEARNINGS_PATH: '~/kb',
          REFLECT_STATE_DIR: '/abs',
          REFLECT_MODE: 'x',
          HOME: '',
        },
        '/home/me/project',
      ),
    ).toEqual({
      REFLECT_MODELS_DIR: '/home/me/project/spec/fixtures/models',
      GLOBAL_LEARNINGS_PATH: '~/kb',
      REFLECT_STATE_DIR: '/abs',
      REFLECT_MODE: 'x',
      HOME: '',
    });
  });

  it('a relative state dir is taken from HOME, as in-process, never from the caller folder', () => {
    const env = absolutePathSettings({ REFLECT_STATE_DIR: 'relstate', HOME: '/home/me' }, '/home/me/project');
    expect(env['REFLECT_STATE_DIR']).toBe('/home/me/relstate');
    // A relative HOME is made absolute first, and the state dir follows it.
    expect(absolutePathSettings({ REFLECT_STATE_DIR: 's', HOME: 'h' }, '/w')['REFLECT_STATE_DIR']).toBe('/w/h/s');
    expect(absolutePathSettings({ REFLECT_STATE_DIR: '~/s', HOME: '/home/me' }, '/w')['REFLECT_STATE_DIR']).toBe('~/s');
  });

  it('a recall and a hook through the server answer as in-process ones do', async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-relpaths-'));
    const state = path.join(base, 'state');
    fs.mkdirSync(path.join(base, 'kb', 'documents'), { recursive: true });
    fs.mkdirSync(path.join(base, 'models'));
    fs.mkdirSync(state);
    fs.writeFileSync(
      path.join(base, 'kb', 'documents', 'pool.md'),
      noteText('lrn-pool', 'postgres connection pool exhausted', 'one engine per test session'),
    );
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: state,
      REFLECT_STATE_DIR: state,
      REFLECT_NO_DAEMON: '1',
      GLOBAL_LEARNINGS_PATH: 'kb',
      REFLECT_MODELS_DIR: 'models',
      RECALL_FLOOR_USER_PROMPT: '0',
      ...driverEnv(),
    };
    const socket = serverSocketPath(env);
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // The server's own folder is not the callers': relative settings resolved there name nothing.
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
    const mask = (s: string): unknown => JSON.parse(s.replace(/"ms":\s*[\d.]+/g, '"ms":0'));
    const argv = ['recall', 'postgres connection pool', '--format', 'json', '--no-cache'];

    const before = await requests(socket);
    const served = run(argv, env);
    expect(await requests(socket)).toBe(before + 1);
    const alone = run(argv, { ...env, RECALL_NO_SERVER: '1' });
    expect(mask(served)).toEqual(mask(alone));
    const out = JSON.parse(served) as { count: number; kb: { root: string }; degraded: { message: string }[] };
    expect(out.count).toBe(1);
    expect(out.kb.root).toBe(path.join(base, 'kb'));
    // The models folder named is the caller's (empty here, so the models are reported missing there).
    expect(out.degraded.some((d) => d.message.includes(`is not in ${path.join(base, 'models')} `))).toBe(true);

    const hookInput = (s: string): string => JSON.stringify({ session_id: s, prompt: 'postgres connection pool exhausted' });
    const hookServed = run(['hook', 'user-prompt-submit'], env, hookInput('a'));
    expect(await requests(socket)).toBe(before + 2);
    const hookAlone = run(['hook', 'user-prompt-submit'], { ...env, RECALL_NO_SERVER: '1' }, hookInput('b'));
    expect(JSON.parse(hookServed)).toEqual(JSON.parse(hookAlone));
    expect(hookServed).toContain('lrn-pool');
  }, 120_000);

  it('each path setting set to a relative path: the server answers as an in-process recall does', async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-relpaths-all-'));
    const state = path.join(base, 'state');
    const put = (rel: string, text: string): void => {
      fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
      fs.writeFileSync(path.join(base, rel), text);
    };
    const pool = (id: string): string => noteText(id, `postgres connection pool exhausted ${id}`, 'one engine per test session');
    put('kb/documents/a.md', pool('lrn-a'));
    put('kb/documents/b.md', pool('lrn-b'));
    put('kb2/documents/c.md', pool('lrn-c'));
    put('learnings/documents/d.md', pool('lrn-d'));
    put('codex/memories/MEMORY.md', '# Memory\n\n- postgres connection pool exhausted: one engine per test session\n');
    put('conf/recall.toml', 'limit = 1\n');
    put('xdg/recall/recall.toml', 'limit = 1\n');
    fs.mkdirSync(path.join(base, 'models'));
    fs.mkdirSync(state);
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: state,
      REFLECT_STATE_DIR: state,
      REFLECT_NO_DAEMON: '1',
      RECALL_FLOOR: '0',
      GLOBAL_LEARNINGS_PATH: path.join(base, 'kb'),
      ...driverEnv(),
    };
    const socket = await startServer(env);
    const noKb = { GLOBAL_LEARNINGS_PATH: '', RECALL_LEARNINGS_KB: '0', RECALL_CLAUDE_MEMORY: '0' };
    // A value and settings that make each one matter where it can; the rest are compared as they come.
    const cases: Record<string, { set: Record<string, string>; count?: number }> = {
      REFLECT_STATE_DIR: { set: { HOME: base, REFLECT_STATE_DIR: 'state' } },
      HOME: { set: { HOME: 'state' } },
      GLOBAL_LEARNINGS_PATH: { set: { GLOBAL_LEARNINGS_PATH: 'kb' }, count: 2 },
      RECALL_KBS: { set: { ...noKb, RECALL_KBS: 'kb:kb2' }, count: 3 },
      CODEX_HOME: { set: { ...noKb, RECALL_CODEX_MEMORY: '1', CODEX_HOME: 'codex' }, count: 1 },
      RECALL_LEARNINGS_ROOT: {
        set: { ...noKb, RECALL_LEARNINGS_KB: '1', RECALL_GLOBAL: '1', RECALL_LEARNINGS_ROOT: 'learnings' },
        count: 1,
      },
      RECALL_CONFIG: { set: { RECALL_CONFIG: 'conf/recall.toml' }, count: 1 },
      XDG_CONFIG_HOME: { set: { XDG_CONFIG_HOME: 'xdg' }, count: 1 },
      REFLECT_MODELS_DIR: { set: { REFLECT_MODELS_DIR: 'models' }, count: 2 },
    };
    const mask = (s: string): unknown => JSON.parse(s.replace(/"ms":\s*[\d.]+/g, '"ms":0'));
    const argv = ['recall', 'postgres connection pool exhausted', '--format', 'json', '--no-cache'];
    let served = await requests(socket);
    const counts: Record<string, number> = {};
    for (const name of new Set([...PATH_SETTINGS, 'RECALL_KBS', 'CODEX_HOME'])) {
      const e = { ...env, ...(cases[name]?.set ?? { [name]: `rel-${name.toLowerCase()}` }) };
      const r = spawnSync(process.execPath, [CLIENT, ...argv], { env: e, cwd: base, encoding: 'utf8', timeout: 60_000 });
      const alone = spawnSync(process.execPath, [CLIENT, ...argv], {
        env: { ...e, RECALL_NO_SERVER: '1' },
        cwd: base,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect({ name, code: r.status, stderr: r.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect({ name, served: await requests(socket) }).toEqual({ name, served: served + 1 });
      served += 1;
      expect({ name, answer: mask(r.stdout) }).toEqual({ name, answer: mask(alone.stdout) });
      counts[name] = (JSON.parse(r.stdout) as { count: number }).count;
      if (cases[name]?.count !== undefined) expect({ name, count: counts[name] }).toEqual({ name, count: cases[name].count });
    }
  }, 300_000);
});
