/**
 * Hostile surroundings of a hook: a harness that keeps stdin open, a FIFO where a log should be, a
 * hung model daemon, a socket planted by another user, a state dir path too long for a socket.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expectEnvelope, hostileCase, mkfifo, prompt, runHook, type Case } from './helpers.js';
import { HOOK_DEADLINE_SEC, subagentStartHook, preToolUseHook, userPromptSubmitHook, sessionStartHook } from '../../hooks/registry.js';
import { HOOK_WIRING, hooksConfig } from '../../hooks/install/harness-config.js';
import { daemonRequest } from '../../sources/models/daemon-client.js';
import { checkSocketDir } from '../../sources/daemon-protocol.js';

let c: Case;
afterEach(() => c?.cleanup());

describe('deadlines', () => {
  it('every harness timeout written in the hook configs is well beyond the hook deadline', () => {
    const shipped = JSON.parse(fs.readFileSync(path.join(__dirnameOf(), '..', '..', 'hooks', 'hooks.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { timeout: number }[] }[]>;
    };
    const deadline: Record<string, number> = {
      SessionStart: sessionStartHook.defaultTimeoutSec,
      UserPromptSubmit: userPromptSubmitHook.defaultTimeoutSec,
      SubagentStart: subagentStartHook.defaultTimeoutSec,
      PreToolUse: preToolUseHook.defaultTimeoutSec,
    };
    expect(HOOK_DEADLINE_SEC).toBeLessThan(30);
    for (const [event, entries] of Object.entries(shipped.hooks)) {
      for (const e of entries) for (const h of e.hooks) expect(h.timeout).toBeGreaterThanOrEqual(deadline[event]! * 1.5);
    }
    // The one table every harness config is written from (hooks install, the plugin hooks.json).
    for (const h of HOOK_WIRING) expect(h.timeoutSec).toBeGreaterThanOrEqual(deadline[h.event]! * 1.5);
    for (const harness of ['claude', 'codex', 'copilot'] as const) {
      const text = hooksConfig(harness, '/opt/recall');
      for (const m of text.matchAll(/"(timeout|timeoutSec)": (\d+)/g)) expect(Number(m[2])).toBeGreaterThanOrEqual(7.5);
    }
  });

  it('stdin left open after the JSON: the hook answers at once (the read is inside the deadline)', async () => {
    c = hostileCase();
    const r = await runHook('user-prompt-submit', {
      env: { ...c.env, REFLECT_RECALL_TIMEOUT: '5' },
      stdin: prompt(),
      keepStdinOpen: true,
      killAfterMs: 20_000,
    });
    // Stdin is never closed: a hook that read to the end of input would answer only at its deadline,
    // with no notes. Notes in the answer, from a process that exited by itself, show the read ended
    // with the JSON (no wall-clock figure, which a loaded machine may not meet).
    expect(expectEnvelope(r, 5000)).toContain('[lrn-pool]');
  });

  it('stdin open and silent: the hook still answers within its deadline', async () => {
    c = hostileCase();
    const r = await runHook('user-prompt-submit', {
      env: { ...c.env, REFLECT_RECALL_TIMEOUT: '2' },
      keepStdinOpen: true,
      killAfterMs: 20_000,
    });
    expect(expectEnvelope(r, 2000)).toBe('');
  });

  it('a hung model daemon costs at most the deadline', async () => {
    c = hostileCase();
    const models = path.join(c.base, 'models');
    for (const id of ['cross-encoder/ms-marco-MiniLM-L-6-v2', 'sentence-transformers/all-mpnet-base-v2']) {
      fs.mkdirSync(path.join(models, id, 'onnx'), { recursive: true });
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'])
        fs.writeFileSync(path.join(models, id, f), '{}');
    }
    const env: NodeJS.ProcessEnv = { ...c.env, REFLECT_MODELS_DIR: models, REFLECT_RECALL_TIMEOUT: '3' };
    delete env['REFLECT_NO_DAEMON'];
    const { loadConfig } = await import('../../pipeline/config/config.js');
    const { createModelClient } = await import('../../pipeline/model-client.js');
    const socket = createModelClient(loadConfig(env), env).socket!;
    checkSocketDir(socket);
    const held: net.Socket[] = [];
    const server = net.createServer((s) => held.push(s));
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      const r = await runHook('user-prompt-submit', { env, stdin: prompt() });
      expect(expectEnvelope(r, 3000)).toContain('[lrn-pool]');
    } finally {
      for (const s of held) s.destroy();
      server.close();
    }
  });
});

function __dirnameOf(): string {
  return path.dirname(new URL(import.meta.url).pathname);
}

describe('state dir surprises', () => {
  it('a FIFO at recall_log.jsonl (and at the other logs) does not block the hook', async () => {
    c = hostileCase();
    fs.mkdirSync(path.join(c.state, 'logs'), { recursive: true });
    for (const f of ['recall_log.jsonl', 'metrics.jsonl', 'recent-searches.json', 'logs/user-prompt-submit.log'])
      mkfifo(path.join(c.state, f));
    const r = await runHook('user-prompt-submit', {
      env: { ...c.env, REFLECT_RECALL_TIMEOUT: '5', REFLECT_RECALL_DEBUG: '1' },
      stdin: prompt(),
    });
    // Opening a FIFO that nobody reads blocks the thread: a hook that did would never exit and be
    // killed (expectEnvelope checks it was not). The append-only logs are left as the FIFOs they are
    // (recent-searches.json is rewritten whole, by a rename over it).
    expect(expectEnvelope(r, 5000)).toContain('[lrn-pool]');
    for (const f of ['recall_log.jsonl', 'metrics.jsonl', 'logs/user-prompt-submit.log'])
      expect(fs.lstatSync(path.join(c.state, f)).isFIFO()).toBe(true);
  });

  it('a daemon socket folder owned by another user is refused, not used', async () => {
    c = hostileCase();
    const dir = path.join(c.base, 'run');
    fs.mkdirSync(dir, { mode: 0o700 });
    const socket = path.join(dir, 'models.sock');
    const server = net.createServer((s) => s.end('{"ok":true,"scores":[9,9]}\n'));
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      if (process.getuid?.() === 0) {
        fs.chownSync(dir, 65534, 65534);
        await expect(
          daemonRequest({ op: 'ping' }, { socket, spawnCommand: ['false'], env: {}, noSpawn: true }, new AbortController().signal),
        ).rejects.toThrow(/belongs to uid 65534, not to this user/);
        fs.chownSync(dir, 0, 0);
        fs.lchownSync(socket, 65534, 65534);
        await expect(
          daemonRequest({ op: 'ping' }, { socket, spawnCommand: ['false'], env: {}, noSpawn: true }, new AbortController().signal),
        ).rejects.toThrow(/models\.sock belongs to uid 65534/);
      }
      fs.chmodSync(dir, 0o777);
      fs.lchownSync(socket, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
      // A folder opened to others is closed again before use (or refused when that fails).
      await daemonRequest({ op: 'ping' }, { socket, spawnCommand: ['false'], env: {}, noSpawn: true }, new AbortController().signal);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      server.close();
    }
  });

  it('a state dir too long for a socket path gets a hashed private folder, never a shared name', async () => {
    const { daemonSocketPath } = await import('../../sources/daemon-protocol.js');
    const long = `/tmp/${'x'.repeat(120)}`;
    const s = daemonSocketPath(long, { modelsDir: '/m', ceModel: 'a', embedModel: 'b' }, {});
    expect(s.length).toBeLessThanOrEqual(100);
    expect(path.basename(path.dirname(s))).toMatch(new RegExp(`^recall-${process.getuid?.() ?? 0}-[0-9a-f]{10}$`));
  });

  it('a temp dir too long for a socket path too (a CI runner deep TMPDIR) falls back to /tmp, for the server and the daemon', async () => {
    const { shortSocketDir } = await import('../../io/private-fs.js');
    const { serverSocketPath } = await import('../../sources/recall-server/protocol.js');
    const longTmp = `/tmp/${'t'.repeat(60)}/${'u'.repeat(60)}`;
    const uid = process.getuid?.() ?? 0;
    expect(shortSocketDir('0123456789', 'recall.sock', {}, longTmp)).toBe(`/tmp/recall-${uid}-0123456789`);
    // A temp dir that fits is still used.
    expect(shortSocketDir('0123456789', 'recall.sock', {}, '/var/tmp')).toBe(`/var/tmp/recall-${uid}-0123456789`);
    const prev = process.env['TMPDIR'];
    process.env['TMPDIR'] = longTmp;
    try {
      const s = serverSocketPath({ HOME: '/home/h', REFLECT_STATE_DIR: `${longTmp}/state` });
      expect(s.length).toBeLessThanOrEqual(100);
      expect(s.startsWith(`/tmp/recall-${uid}-`)).toBe(true);
      const { daemonSocketPath } = await import('../../sources/daemon-protocol.js');
      const d = daemonSocketPath(`${longTmp}/state`, { modelsDir: '/m', ceModel: 'a', embedModel: 'b' }, {});
      expect(d.length).toBeLessThanOrEqual(100);
      expect(d.startsWith(`/tmp/recall-${uid}-`)).toBe(true);
    } finally {
      if (prev === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = prev;
    }
  });
});
