/**
 * The thin client decides alone which calls go to the server and how long a hook may take, so its
 * rules must be the in-process path's own: same sub-command words, same deadline reading, same
 * stdin reading. It also must stay thin: what it imports never reaches the pipeline.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { plainRecall } from '../../server/client.js';
import { hookDeadline, readHookStdin } from '../../server/client-stdin.js';
import { fastParse } from '../../cli/options.js';
import { HOOKS } from '../../hooks/registry.js';
import { HOOK_NAMES } from '../../hooks/hook-table.js';
import { hookDeadlineMs, readStdin } from '../../hooks/runtime.js';
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

  it('reads every hook deadline setting as the hook does, malformed values included', () => {
    const started = 1_000_000;
    for (const name of HOOK_NAMES) {
      for (const value of [undefined, '', '7', '0.5', '0.01', '4000', 'soon', ' 3 ', '-1']) {
        const env = {
          REFLECT_RECALL_TIMEOUT: value,
          REFLECT_SUBAGENT_RECALL_TIMEOUT: value,
          HOME: '/nonexistent',
          REFLECT_STATE_DIR: '/nonexistent/state',
          XDG_CONFIG_HOME: '/nonexistent',
        };
        expect([name, value, hookDeadline(name, env, started)]).toEqual([name, value, hookDeadlineMs(HOOKS[name], env, started)]);
      }
    }
  });

  it('reads stdin with the hook runtime reader (a complete JSON value on an open pipe ends the read)', async () => {
    const a = new PassThrough();
    const b = new PassThrough();
    const pending = [readHookStdin(a as unknown as NodeJS.ReadStream, Date.now() + 20_000), readStdin(b as unknown as NodeJS.ReadStream)];
    for (const s of [a, b]) s.write('{"prompt": "pool"}\n');
    expect(await Promise.all(pending)).toEqual(['{"prompt": "pool"}\n', '{"prompt": "pool"}\n']);
  });

  it('documents the settings it reads from the environment only (recall.toml cannot set them) on the settings page', () => {
    const page = fs.readFileSync(path.join(repo, 'docs', 'settings.md'), 'utf8');
    for (const name of ENV_ONLY_SETTINGS) expect([name, page.includes(`\`${name}`)]).toEqual([name, true]);
  });

  it('imports only node built-ins and small shared modules, never the pipeline', () => {
    const seen = new Set<string>();
    const todo = ['server/client.ts'];
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
      'hooks/hook-table.ts',
      'io/hook-input.ts',
      'io/private-fs.ts',
      'server/client-stdin.ts',
      'server/client.ts',
      'server/fallback-slots.ts',
      'server/start-server.ts',
      'sinks/hook-envelope.ts',
      'sinks/safe-text.ts',
      'sources/daemon-protocol.ts',
      'sources/recall-server/ask.ts',
      'sources/recall-server/index.ts',
      'sources/recall-server/protocol.ts',
    ]);
  });
});
