/**
 * The thin client decides alone which calls go to the server and how long a hook may take, so its
 * rules must be the in-process path's own: same sub-command words; the hook's deadline is read
 * once, there, from the environment and recall.toml, and carried on the call. It also must stay
 * thin: what it imports never reaches the recall pipeline.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { plainRecall } from '../../client/client.js';
import { startHookCall, withStdin } from '../../client/hook-call.js';
import { fastParse } from '../../cli/options.js';
import { HOOK_NAMES, hookRow } from '../../hooks/hook-table.js';
import { COMMAND_WORDS } from '../../cli/command-words.js';
import { ENV_ONLY_SETTINGS } from '../../sources/recall-server/protocol.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What a TypeScript file imports at run time (type-only imports are erased by the bundler). */
function importsOf(rel: string): string[] {
  const text = fs.readFileSync(path.join(repo, rel), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
}

describe('thin client and in-process path agree', () => {
  it('sends a command line to the server exactly when the CLI would parse it as a plain recall', () => {
    const lines = [
      ...COMMAND_WORDS.map((w) => [w]),
      ...COMMAND_WORDS.map((w) => [w, 'pool']),
      ['postgres', 'pool'],
      ['--', 'index'],
      ['pool', '--help'],
      ['pool', '-V'],
      ['pool', '--limit', '3'],
    ];
    for (const argv of lines) expect([argv, plainRecall(argv)]).toEqual([argv, fastParse(argv) !== null]);
  });

  it('reads every hook deadline setting once: a malformed or out-of-range value means the default, and says so', () => {
    const started = 1_000_000;
    const cases: [string | undefined, number | null][] = [
      [undefined, null],
      ['', null],
      ['7', 7],
      ['0.5', 0.5],
      [' 3 ', 3],
      ['0.01', null],
      ['4000', null],
      ['soon', null],
      ['-1', null],
    ];
    for (const name of HOOK_NAMES) {
      const row = hookRow(name);
      for (const [value, sec] of cases) {
        const env = {
          [row.timeoutEnv]: value,
          HOME: '/nonexistent',
          REFLECT_STATE_DIR: '/nonexistent/state',
          XDG_CONFIG_HOME: '/nonexistent',
        };
        const call = startHookCall(name, { env, cwd: '/', startedMs: started });
        expect([name, value, call.deadlineMs]).toEqual([name, value, started + (sec ?? row.defaultTimeoutSec) * 1000]);
        const malformed = value !== undefined && value.trim() !== '' && sec === null;
        expect([name, value, call.warnings.some((w) => w.startsWith(`${row.timeoutEnv}=`))]).toEqual([name, value, malformed]);
      }
    }
  });

  it('takes the deadline from recall.toml when the environment does not set it, once, for client and server alike', () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-call-'));
    try {
      fs.writeFileSync(path.join(state, 'recall.toml'), 'hook_timeout = 25\nsubagent_timeout = 7\n');
      const env = { HOME: state, REFLECT_STATE_DIR: state, XDG_CONFIG_HOME: '/nonexistent' };
      expect(startHookCall('user-prompt-submit', { env, cwd: '/', startedMs: 0 }).deadlineMs).toBe(25_000);
      expect(startHookCall('subagent-start', { env, cwd: '/', startedMs: 0 }).deadlineMs).toBe(7_000);
      // The environment still wins over the file.
      expect(startHookCall('user-prompt-submit', { env: { ...env, REFLECT_RECALL_TIMEOUT: '3' }, cwd: '/', startedMs: 0 }).deadlineMs).toBe(
        3_000,
      );
    } finally {
      fs.rmSync(state, { recursive: true, force: true });
    }
  });

  it('reads stdin within the call (a complete JSON value on an open pipe ends the read)', async () => {
    const a = new PassThrough();
    const start = startHookCall('user-prompt-submit', { env: { HOME: '/nonexistent' }, cwd: '/', startedMs: Date.now() });
    const pending = withStdin(start, a as unknown as NodeJS.ReadStream);
    a.write('{"prompt": "pool"}\n');
    expect((await pending).stdinText).toBe('{"prompt": "pool"}\n');
  });

  it('documents the settings it reads from the environment only (recall.toml cannot set them) on the settings page', () => {
    const page = fs.readFileSync(path.join(repo, 'docs', 'settings.md'), 'utf8');
    for (const name of ENV_ONLY_SETTINGS) expect([name, page.includes(`\`${name}`)]).toEqual([name, true]);
  });

  it('imports only node built-ins and small shared modules (the settings reader among them), never the recall pipeline', () => {
    const seen = new Set<string>();
    const todo = ['client/client.ts'];
    while (todo.length > 0) {
      const rel = todo.pop()!;
      if (seen.has(rel)) continue;
      seen.add(rel);
      for (const spec of importsOf(rel)) {
        if (spec.startsWith('node:')) continue;
        expect([rel, spec]).toEqual([rel, expect.stringMatching(/^\.\.?\//)]);
        todo.push(path.relative(repo, path.resolve(repo, path.dirname(rel), spec)).replace(/\.js$/, '.ts'));
      }
    }
    expect([...seen].sort()).toEqual([
      'cli/command-words.ts',
      'client/client.ts',
      'client/fallback-slots.ts',
      'client/hook-call.ts',
      // The side of scripts/hook.sh (the hook's keeper), and the spawn time from /proc.
      'client/hook-keeper.ts',
      'client/start-server.ts',
      'core/path-settings.ts',
      // The settings table (data, no imports): the path settings the client makes absolute come from it;
      // its folder's entry also gives the settings reader (pure, no I/O).
      'core/settings/index.ts',
      'core/settings/reader.ts',
      'core/settings/retrieval.ts',
      'core/settings/runtime.ts',
      'core/settings/settings.ts',
      'core/state-dir.ts',
      'core/truthy.ts',
      'core/types.ts',
      'hooks/hook-table.ts',
      'io/hook-input.ts',
      'io/private-fs.ts',
      'io/process-start.ts',
      // The specs' stand-in for a hung mount, called by private-fs's reads (node:path only).
      'io/read-stall.ts',
      // The settings reader: a hook call's settings (environment over recall.toml) are read once, here.
      'pipeline/config/config.ts',
      'pipeline/config/file.ts',
      'pipeline/config/index.ts',
      'sinks/hook-envelope.ts',
      'sinks/safe-text.ts',
      'sources/daemon-protocol.ts',
      'sources/recall-server/ask.ts',
      'sources/recall-server/index.ts',
      'sources/recall-server/protocol.ts',
    ]);
  });

  it('loads node:crypto only for a too-long socket path, not on every hook (the built thin client)', () => {
    // The bundle, not the sources: esbuild drops the imports the client's code never reaches (the
    // hashed ids of safe-text, the model daemon's socket), and a static import is loaded at start.
    const bundle = fs.readFileSync(path.join(repo, 'dist', 'bundle', 'client.mjs'), 'utf8');
    const builtins = [...bundle.matchAll(/^import [^;]*? from "(node:[a-z_/]+)";$/gm)].map((m) => m[1]);
    expect(builtins).toContain('node:net');
    expect(builtins).not.toContain('node:crypto');
  });
});
