/**
 * plugin:release refuses, before building and with one line, the branch names and places that
 * would leave the repository in a state git users trip over: `@` (git reads it as HEAD), a name
 * that a remote-tracking branch or a tag already answers to (`origin/main` would shadow
 * refs/remotes/origin/main), and a release branch checked out in a linked worktree (moving it
 * would change that worktree's files under its feet). No payload build is needed: the refusals
 * come first, and the one release made here uses a two-file stand-in payload.
 */
import { describe, it, expect, afterAll, jest } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-release-edges-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

type Run = (argv: string[], opts: { cwd: string; build: (dir: string) => Promise<number> }) => Promise<number>;

/** A source repository on branch `work` (main beside it) with a remote `origin` that has main. */
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
  const origin = path.join(base, `${name}.git`);
  spawnSync('git', ['init', '-q', '--bare', origin]);
  git('remote', 'add', 'origin', origin);
  git('push', '-q', 'origin', 'main');
  git('fetch', '-q', 'origin');
  git('tag', 'v1');
  git('checkout', '-q', '-b', 'work');
  return { dir, git };
}

/** A stand-in payload: what isRelease looks for (its own marketplace, no source build files). */
function fakeBuild(version: string): (dir: string) => Promise<number> {
  return (dir) => {
    fs.mkdirSync(path.join(dir, '.claude-plugin'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.claude-plugin', 'marketplace.json'), '{"plugins":[]}\n');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ version }));
    return Promise.resolve(1);
  };
}

async function release(argv: string[], cwd: string, version = '1.0.0'): Promise<{ status: number; stderr: string; builds: number }> {
  const { run } = (await import(path.join(repo, 'scripts', 'plugin-release.mjs'))) as { run: Run };
  let builds = 0;
  let stderr = '';
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const build = fakeBuild(version);
    return { status: await run(argv, { cwd, build: (d) => (builds++, build(d)) }), stderr, builds };
  } finally {
    spy.mockRestore();
    stdout.mockRestore();
  }
}

describe('plugin:release edges', () => {
  it('refuses `@`, a name a remote-tracking branch or a tag answers to, and creates no ref', async () => {
    const { dir, git } = sourceRepo('names');
    const refs = (): string => git('for-each-ref', '--format=%(refname)');
    const before = refs();
    const cases: [string, RegExp][] = [
      ['@', /^plugin:release: "@" is not a valid branch name \(git reads @ as HEAD\); usage: .*\n$/],
      ['origin/main', /^plugin:release: "origin\/main" would shadow the remote-tracking branch refs\/remotes\/origin\/main; .*\n$/],
      ['origin/plugin', /^plugin:release: "origin\/plugin" starts with the name of the remote origin; .*\n$/],
      ['v1', /^plugin:release: "v1" would shadow the tag refs\/tags\/v1; .*\n$/],
    ];
    for (const [branch, why] of cases) {
      const r = await release(['--branch', branch], dir);
      expect({ branch, ...r }).toEqual({ branch, status: 2, builds: 0, stderr: expect.stringMatching(why) });
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
    expect(refs()).toBe(before);
  });

  it('refuses to move a release branch checked out in a linked worktree, and moves it once that worktree leaves it', async () => {
    const { dir, git } = sourceRepo('worktree');
    expect(await release(['--branch', 'plugin'], dir, '1.0.0')).toEqual({ status: 0, builds: 1, stderr: '' });
    const tip = git('rev-parse', 'plugin');
    const linked = path.join(base, 'worktree-linked');
    git('worktree', 'add', '-q', linked, 'plugin');
    const r = await release(['--branch', 'plugin'], dir, '1.0.1');
    expect(r).toEqual({
      status: 2,
      builds: 0,
      stderr: `plugin:release: plugin is checked out in the worktree at ${linked}; release to another --branch or check out something else there\n`,
    });
    expect(git('rev-parse', 'plugin')).toBe(tip);
    expect(fs.readFileSync(path.join(linked, 'package.json'), 'utf8')).toContain('1.0.0');
    git('worktree', 'remove', '--force', linked);
    expect(await release(['--branch', 'plugin'], dir, '1.0.1')).toEqual({ status: 0, builds: 1, stderr: '' });
    expect(git('rev-parse', 'plugin^')).toBe(tip);
  });
});
