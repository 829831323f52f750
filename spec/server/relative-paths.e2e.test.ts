/**
 * Relative path settings mean the caller's folder whichever process answers: a recall and a hook
 * run with `GLOBAL_LEARNINGS_PATH=kb` and `REFLECT_MODELS_DIR=models` answer the same through the
 * recall server (started in another folder) as in their own process (RECALL_NO_SERVER=1).
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
import { absolutePathSettings } from '../../core/path-settings.js';

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

describe('relative path settings', () => {
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
});
