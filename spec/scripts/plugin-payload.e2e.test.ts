/**
 * The plugin payload (`npm run plugin:build`) runs with no dependency install: built into a temp
 * folder that has no node_modules above it, its hooks answer with learnings from a reflect KB
 * (frontmatter parsed, recall.toml read), its CLI opens the ids shown, and it carries no
 * dependency for a plugin manager to fetch or build.
 */
import { describe, it, expect, beforeAll, afterAll, jest } from '@jest/globals';
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

  it('carries the README as it is, not the docs pages or CONTRIBUTING.md', () => {
    expect(fs.readFileSync(path.join(plugin, 'README.md'), 'utf8')).toBe(fs.readFileSync(path.join(repo, 'README.md'), 'utf8'));
    expect(fs.existsSync(path.join(plugin, 'docs'))).toBe(false);
    expect(fs.existsSync(path.join(plugin, 'CONTRIBUTING.md'))).toBe(false);
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

  type Run = (argv: string[], opts: { cwd: string; build: (dir: string) => Promise<number> }) => Promise<number>;

  /** A source repository with a configured identity, on branch `work`, with `main` beside it. */
  function sourceRepo(name: string): { dir: string; git: (...a: string[]) => string } {
    const dir = path.join(base, name);
    fs.mkdirSync(dir);
    const git = (...a: string[]): string => spawnSync('git', a, { cwd: dir, encoding: 'utf8' }).stdout.trim();
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'dev');
    git('config', 'user.email', 'dev@example.org');
    for (const f of ['package-lock.json', 'tsconfig.json', 'a.txt']) fs.writeFileSync(path.join(dir, f), '{}\n');
    git('add', '-A');
    git('commit', '-qm', 'source');
    git('checkout', '-q', '-b', 'work');
    return { dir, git };
  }

  async function release(argv: string[], cwd: string): Promise<{ status: number; stderr: string; builds: number }> {
    const { run } = (await import(path.join(repo, 'scripts', 'plugin-release.mjs'))) as { run: Run };
    let builds = 0;
    let stderr = '';
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
    try {
      const build = (dir: string): Promise<number> => (builds++, fs.cpSync(plugin, dir, { recursive: true }), Promise.resolve(1));
      return { status: await run(argv, { cwd, build }), stderr, builds };
    } finally {
      spy.mockRestore();
    }
  }

  it('plugin:release refuses, before building, a local or remote branch whose tip is not a payload release, and a flag with no value', async () => {
    const { dir, git } = sourceRepo('refuse');
    const main = git('rev-parse', 'main');
    const onMain = await release(['--branch', 'main'], dir);
    expect(onMain).toEqual({
      status: 1,
      builds: 0,
      stderr: expect.stringMatching(/^plugin:release: main is not a plugin release branch.*\n$/),
    });
    expect(git('rev-parse', 'main')).toBe(main);
    const refused: [string[], string][] = [
      [['--branch', '--push', 'origin'], '--branch needs a value'],
      [['--branch'], '--branch needs a value'],
      [['--push'], '--push needs a value'],
      [['--branch', 'a..b'], '"a..b" is not a valid branch name'],
      [['--brunch', 'x'], 'unknown argument "--brunch"'],
    ];
    for (const [argv, why] of refused) {
      const r = await release(argv, dir);
      expect(r).toEqual({
        status: 2,
        builds: 0,
        stderr: `plugin:release: ${why}; usage: npm run plugin:release [-- --branch NAME] [--push REMOTE]\n`,
      });
    }
    expect(git('for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('refs/heads/main\nrefs/heads/work');
    // A remote whose `plugin` branch holds source: refused while this clone lacks the tip, and once it has it.
    const remote = path.join(base, 'refuse.git');
    spawnSync('git', ['init', '-q', '--bare', remote]);
    git('push', '-q', remote, 'main:refs/heads/plugin');
    const other = sourceRepo('other');
    fs.writeFileSync(path.join(other.dir, 'b.txt'), 'more\n');
    other.git('add', '-A');
    other.git('commit', '-qm', 'more source');
    other.git('push', '-q', '-f', remote, 'work:refs/heads/plugin');
    const unknown = await release(['--push', remote], dir);
    expect(unknown).toEqual({ status: 1, builds: 0, stderr: expect.stringMatching(/^plugin:release: plugin on .* fetch it first\n$/) });
    git('fetch', '-q', remote, 'plugin');
    const fetched = await release(['--push', remote], dir);
    expect(fetched).toEqual({
      status: 1,
      builds: 0,
      stderr: expect.stringMatching(/^plugin:release: plugin on .* is not a plugin release branch/),
    });
    expect(git('for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('refs/heads/main\nrefs/heads/work');
    expect(spawnSync('git', ['rev-parse', 'plugin'], { cwd: remote, encoding: 'utf8' }).stdout.trim()).toBe(other.git('rev-parse', 'HEAD'));
  });

  it('plugin:release advances and pushes a branch of first-format releases, each new commit with the release trailer', async () => {
    const { dir, git } = sourceRepo('advance');
    // A release as the first releases wrote it: a payload tree (one file short, so the next build
    // differs), the subject alone, no trailer.
    const tmpIndex = path.join(base, 'advance-index');
    const env = { ...process.env, GIT_INDEX_FILE: tmpIndex };
    spawnSync('git', ['--work-tree', plugin, 'add', '-A', '-f', '.'], { cwd: dir, env });
    spawnSync('git', ['--work-tree', plugin, 'rm', '-q', '--cached', 'README.md'], { cwd: dir, env });
    const tree = spawnSync('git', ['write-tree'], { cwd: dir, env, encoding: 'utf8' }).stdout.trim();
    const legacy = git('commit-tree', tree, '-m', `recall plugin payload 0.0.1, built from ${git('rev-parse', 'HEAD')}`);
    git('update-ref', 'refs/heads/plugin', legacy);
    const remote = path.join(base, 'advance.git');
    spawnSync('git', ['init', '-q', '--bare', remote]);
    git('push', '-q', remote, 'plugin');
    const r = await release(['--branch', 'plugin', '--push', remote], dir);
    expect(r).toEqual({ status: 0, builds: 1, stderr: '' });
    expect(git('rev-parse', 'plugin^')).toBe(legacy);
    expect(git('log', '-1', '--format=%B', 'plugin').split('\n')).toContain('Recall-Plugin-Release: 1');
    expect(spawnSync('git', ['rev-parse', 'plugin'], { cwd: remote, encoding: 'utf8' }).stdout.trim()).toBe(git('rev-parse', 'plugin'));
    // The new format is accepted in turn: the same build again commits nothing and succeeds.
    expect(await release(['--push', remote], dir)).toEqual({ status: 0, builds: 1, stderr: '' });
  });

  it('plugin:release with no git identity configured commits as "recall release", and as the configured identity when there is one', () => {
    const { dir, git } = sourceRepo('ident');
    git('config', '--unset', 'user.name');
    git('config', '--unset', 'user.email');
    const home = path.join(base, 'ident-home');
    fs.mkdirSync(home);
    const script = (branch: string): string =>
      `import { run } from ${JSON.stringify(path.join(repo, 'scripts', 'plugin-release.mjs'))};
       import fs from 'node:fs';
       const build = async (d) => (fs.cpSync(${JSON.stringify(plugin)}, d, { recursive: true }), 1);
       process.exitCode = await run(['--branch', '${branch}'], { cwd: ${JSON.stringify(dir)}, build });`;
    const child = (branch: string): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script(branch)], {
        env: { PATH: process.env['PATH'] ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const bare = child('plugin');
    expect({ status: bare.status, stderr: bare.stderr }).toEqual({ status: 0, stderr: '' });
    expect(git('log', '-1', '--format=%an <%ae>|%cn <%ce>', 'plugin')).toBe(
      'recall release <release@localhost>|recall release <release@localhost>',
    );
    git('config', 'user.name', 'rel');
    git('config', 'user.email', 'rel@example.org');
    expect(child('plugin2').status).toBe(0);
    expect(git('log', '-1', '--format=%an <%ae>|%cn <%ce>', 'plugin2')).toBe('rel <rel@example.org>|rel <rel@example.org>');
  });
});
