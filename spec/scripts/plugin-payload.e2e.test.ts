/**
 * The plugin payload (`npm run plugin:build`) runs with no dependency install: built into a temp
 * folder that has no node_modules above it, its hooks answer with learnings from a reflect KB
 * (frontmatter parsed, recall.toml read), its CLI opens the ids shown, and it carries no
 * dependency for a plugin manager to fetch or build.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let base: string;
let plugin: string;
let state: string;
let built: ReturnType<typeof spawnSync>;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-payload-'));
  plugin = path.join(base, 'plugin');
  state = path.join(base, 'state');
  fs.mkdirSync(state);
  built = spawnSync(process.execPath, [path.join(repo, 'scripts', 'plugin-build.mjs'), '--out', plugin], {
    encoding: 'utf8',
    timeout: 240_000,
  });
  fs.cpSync(path.join(repo, 'examples', 'kb'), path.join(base, 'kb'), { recursive: true });
  fs.writeFileSync(path.join(state, 'recall.toml'), `kb = "${path.join(base, 'kb')}"\n`);
}, 250_000);
afterAll(() => {
  spawnSync(process.execPath, [path.join(plugin, 'dist', 'bundle', 'recall.mjs'), 'daemon', 'stop'], { env: env(), encoding: 'utf8' });
  fs.rmSync(base, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  // No NODE_PATH, no repo on any path: only what the payload holds can load.
  return { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, CLAUDE_PLUGIN_ROOT: plugin, RECALL_NO_SERVER: '1' };
}

describe('plugin payload', () => {
  it('builds a folder with no dependencies to install, no sourcemaps, a marketplace of its own, and no node_modules above it', () => {
    expect(built.status).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(plugin, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const k of ['dependencies', 'optionalDependencies', 'devDependencies', 'peerDependencies', 'scripts'])
      expect(pkg).not.toHaveProperty(k);
    expect(fs.readdirSync(path.join(plugin, 'dist', 'bundle')).filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(plugin, '.claude-plugin', 'marketplace.json'), 'utf8')).plugins[0].source).toBe('./');
    expect(fs.readFileSync(path.join(plugin, 'hooks', 'hooks.json'), 'utf8')).toBe(
      fs.readFileSync(path.join(repo, 'hooks', 'hooks.json'), 'utf8'),
    );
    for (let d = path.dirname(plugin); d !== path.dirname(d); d = path.dirname(d))
      expect(fs.existsSync(path.join(d, 'node_modules'))).toBe(false);
  });

  it('answers a hook with learnings from a reflect KB, the command as hooks.json declares it', () => {
    const hooks = JSON.parse(fs.readFileSync(path.join(plugin, 'hooks', 'hooks.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    const command = hooks.hooks['UserPromptSubmit']![0]!.hooks[0]!.command;
    // A hook refreshes the index for at most a second (a background refresher does the rest): build
    // it first with the payload's own CLI, so the hook's answer does not depend on the machine's load.
    const index = spawnSync(path.join(plugin, 'bin', 'recall'), ['index'], { env: env(), encoding: 'utf8', timeout: 120_000 });
    expect(index.status).toBe(0);
    const r = spawnSync('sh', ['-c', command], {
      env: env(),
      cwd: base,
      encoding: 'utf8',
      timeout: 60_000,
      input: JSON.stringify({
        session_id: 'pay-1',
        hook_event_name: 'UserPromptSubmit',
        cwd: base,
        prompt: 'postgres connection pool exhausted in tests',
      }),
    });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } };
    const ids = [...out.hookSpecificOutput.additionalContext.matchAll(/^- \*\*\[(.+?)\]\*\*/gm)].map((m) => m[1]!);
    expect(ids).toContain('lrn-pytest-pg-pool-fixture-c04e7a');
    expect(fs.existsSync(path.join(state, 'last-event.json'))).toBe(false);
    const show = spawnSync(path.join(plugin, 'bin', 'recall'), ['show', ids[0]!], { env: env(), encoding: 'utf8', timeout: 60_000 });
    expect(show.status).toBe(0);
    // SQLite without a native addon: node:sqlite (Node ≥ 22.13) or the WebAssembly build.
    const status = spawnSync(path.join(plugin, 'bin', 'recall'), ['status'], { env: env(), encoding: 'utf8', timeout: 60_000 });
    expect(status.stdout).toMatch(/sqlite (wasm|node)\n/);
  }, 180_000);

  it('is committed by plugin:release as the whole tree of an orphan branch, once per distinct payload, the checkout untouched', async () => {
    const { commitPayload } = (await import(path.join(repo, 'scripts', 'plugin-release.mjs'))) as {
      commitPayload: (payload: string, branch: string, cwd: string) => string | null;
    };
    const src = path.join(base, 'src');
    const git = (...a: string[]): string => spawnSync('git', a, { cwd: src, encoding: 'utf8' }).stdout.trim();
    fs.mkdirSync(src);
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(src, 'a.txt'), 'source\n');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'source');
    const head = git('rev-parse', 'HEAD');
    // commit-tree needs an identity, which a CI machine may not have configured.
    for (const k of ['AUTHOR', 'COMMITTER']) {
      process.env[`GIT_${k}_NAME`] ??= 't';
      process.env[`GIT_${k}_EMAIL`] ??= 't@t';
    }
    const first = commitPayload(plugin, 'plugin', src);
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    expect(git('rev-list', '--count', 'plugin')).toBe('1');
    expect(git('log', '-1', '--format=%B', 'plugin')).toContain(`built from ${head}`);
    const files = git('ls-tree', '-r', '--name-only', 'plugin').split('\n');
    expect(files).toContain('.claude-plugin/marketplace.json');
    expect(files).toContain('dist/node_modules/node-sqlite3-wasm/package.json');
    expect(files).not.toContain('a.txt');
    expect(commitPayload(plugin, 'plugin', src)).toBeNull();
    expect(git('rev-parse', 'HEAD')).toBe(head);
    expect(git('status', '--porcelain')).toBe('');
  });
});
