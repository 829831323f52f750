/**
 * The model daemon as users get it: the built entry (dist/bundle/daemon.mjs, built by `npm test`),
 * spawned by the client on first use, on the committed fixture models.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { daemonRequest, type ClientOptions } from '../../../sources/models/daemon-client.js';
import { ModelRuntime } from '../../../sources/models/runtime.js';
import { waitFor } from '../../helpers/wait.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..', '..');
const ENTRY = path.join(repo, 'dist', 'bundle', 'daemon.mjs');
const MODELS = path.join(repo, 'spec', 'fixtures', 'models');

let dirs: string[] = [];
let sockets: string[] = [];
afterEach(async () => {
  for (const s of sockets) {
    try {
      await daemonRequest({ op: 'shutdown' }, { ...opts(s), noSpawn: true }, AbortSignal.timeout(2000));
    } catch {
      /* not running */
    }
  }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
  sockets = [];
});

function opts(socket: string, env: Record<string, string> = {}): ClientOptions {
  return {
    socket,
    spawnCommand: [process.execPath, ENTRY, '--socket', socket],
    env: {
      PATH: process.env['PATH'] ?? '',
      REFLECT_MODELS_DIR: MODELS,
      REFLECT_CE_MODEL: 'fixture/tiny-ce',
      REFLECT_EMBED_MODEL: 'fixture/tiny-embed',
      ...env,
    },
  };
}

function freshSocket(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rd-'));
  dirs.push(dir);
  const s = path.join(dir, 'm.sock');
  sockets.push(s);
  return s;
}

const signal = (): AbortSignal => AbortSignal.timeout(20_000);

function daemonPids(socket: string): number[] {
  const out = spawnSync('pgrep', ['-f', `daemon.mjs --socket ${socket}`], { encoding: 'utf8' }).stdout.trim();
  return out ? out.split('\n').map(Number) : [];
}

describe('model daemon', () => {
  it('is spawned on first use and answers embed and rerank exactly like the in-process runtime', async () => {
    expect(fs.existsSync(ENTRY)).toBe(true);
    const s = freshSocket();
    const texts = ['postgres connection pool', 'redis cache'];
    const emb = await daemonRequest({ op: 'embed', texts }, opts(s), signal());
    const rr = await daemonRequest({ op: 'rerank', query: 'pool sizing', texts }, opts(s), signal());
    const local = new ModelRuntime({ modelsDir: MODELS, ceModel: 'fixture/tiny-ce', embedModel: 'fixture/tiny-embed' });
    expect(emb.ok && emb.vectors).toEqual(await local.embed(texts));
    expect(rr.ok && rr.scores).toEqual(await local.rerank('pool sizing', texts));
    expect(fs.statSync(s).mode & 0o777).toBe(0o600);
  });

  it('ends a spawn race with one daemon', async () => {
    const s = freshSocket();
    const answers = await Promise.all(Array.from({ length: 6 }, () => daemonRequest({ op: 'status' }, opts(s), signal())));
    const pids = new Set(answers.map((a) => (a.ok ? a.status!.pid : -1)));
    expect(pids.size).toBe(1);
    // The daemons that lost the race exit on their own: wait for that, not for a fixed time.
    await waitFor(() => daemonPids(s).length <= 1, 20_000, 50);
    expect(daemonPids(s)).toEqual([...pids]);
  });

  it('serves concurrent clients correctly', async () => {
    const s = freshSocket();
    const texts = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'redis cache timeout' : 'postgres connection pool'));
    const answers = await Promise.all(texts.map((t) => daemonRequest({ op: 'embed', texts: [t] }, opts(s), signal())));
    const [a, b] = await new ModelRuntime({ modelsDir: MODELS, ceModel: 'fixture/tiny-ce', embedModel: 'fixture/tiny-embed' }).embed([
      texts[0]!,
      texts[1]!,
    ]);
    answers.forEach((r, i) => expect(r.ok && r.vectors![0]).toEqual(i % 2 ? b : a));
  });

  it('exits after the idle timeout and removes its socket', async () => {
    const s = freshSocket();
    const r = await daemonRequest({ op: 'status' }, opts(s, { REFLECT_IDLE_TIMEOUT: '1' }), signal());
    expect(r.ok && r.status!.idleTimeoutSec).toBe(1);
    expect(await waitFor(() => !fs.existsSync(s) && daemonPids(s).length === 0, 20_000, 50)).toBe(true);
  });

  it('replaces a stale socket file nobody listens on', async () => {
    const s = freshSocket();
    // A socket left behind by a crashed daemon: a process bound it and was killed without cleanup.
    const crashed = spawn(
      process.execPath,
      ['-e', `require('net').createServer().listen(${JSON.stringify(s)}, () => process.kill(process.pid, 'SIGKILL'))`],
      { stdio: 'ignore' },
    );
    await new Promise((r) => crashed.once('exit', r));
    expect(fs.existsSync(s)).toBe(true);
    await expect(new Promise((resolve, reject) => net.connect(s).once('connect', resolve).once('error', reject))).rejects.toThrow(
      /ECONNREFUSED/,
    );
    const r = await daemonRequest({ op: 'ping' }, opts(s), signal());
    expect(r).toEqual({ ok: true, pong: true });
  });

  it('survives a client killed mid-request', async () => {
    const s = freshSocket();
    const first = await daemonRequest({ op: 'status' }, opts(s), signal());
    const pid = first.ok ? first.status!.pid : -1;
    // A client process that sends a big request and is killed before the answer.
    const script =
      `const big = JSON.stringify({ op: 'embed', texts: Array.from({ length: 400 }, () => 'postgres connection pool '.repeat(60)) });` +
      `const c = require('net').connect(${JSON.stringify(s)}); c.on('connect', () => { c.write(big + '\\n'); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 20); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    const after = await daemonRequest({ op: 'embed', texts: ['redis cache'] }, opts(s), signal());
    expect(after.ok).toBe(true);
    const st = await daemonRequest({ op: 'status' }, opts(s), signal());
    expect(st.ok && st.status!.pid).toBe(pid);
  });

  it('stops on request and leaves no socket behind; a caller deadline aborts a request', async () => {
    const s = freshSocket();
    await daemonRequest({ op: 'ping' }, opts(s), signal());
    const ac = new AbortController();
    ac.abort(new Error('deadline'));
    await expect(daemonRequest({ op: 'embed', texts: ['x'] }, opts(s), ac.signal)).rejects.toThrow('deadline');
    expect(await daemonRequest({ op: 'shutdown' }, opts(s), signal())).toEqual({ ok: true, bye: true });
    expect(await waitFor(() => !fs.existsSync(s), 20_000, 50)).toBe(true);
  });
});
