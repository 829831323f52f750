/**
 * What recall reads of a repository without letting git read its configuration: the branch and the
 * origin from the `.git` files, the commit subjects from git on a private git dir borrowing the
 * repository's objects — in a plain clone, with packed refs, in a linked worktree and a shallow clone.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { currentBranch, headCommit, originName, originUrl, recentCommitSubjects } from '../../sources/git.js';

let base = '';
afterEach(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
  base = '';
});

const ENV = { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: os.tmpdir() };
const git = (dir: string, ...args: string[]): string => {
  const r = spawnSync('git', ['-C', dir, '-c', 'user.name=a', '-c', 'user.email=a@example.com', ...args], { encoding: 'utf8', env: ENV });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};

function repoWithCommits(subjects: string[], name = 'repo'): string {
  if (!base) base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-git-')));
  const dir = path.join(base, name);
  fs.mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'feat/retry-budget');
  for (const s of subjects) git(dir, 'commit', '-q', '--allow-empty', '-m', s);
  return dir;
}

describe('reading a repository without its configuration', () => {
  it('branch, origin and subjects of a plain repository', async () => {
    const dir = repoWithCommits(['first', 'second', 'third']);
    git(dir, 'remote', 'add', 'origin', 'git@example.com:acme/shop-api.git');
    expect(currentBranch(path.join(dir))).toBe('feat/retry-budget');
    expect(originName(dir)).toBe('shop-api');
    expect(await recentCommitSubjects(dir, 2)).toEqual(['third', 'second']);
  });

  it('refs packed by git gc, and a detached HEAD', async () => {
    const dir = repoWithCommits(['one', 'two']);
    git(dir, 'pack-refs', '--all');
    expect(fs.existsSync(path.join(dir, '.git', 'refs', 'heads', 'feat', 'retry-budget'))).toBe(false);
    expect(await recentCommitSubjects(dir, 5)).toEqual(['two', 'one']);
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    expect(currentBranch(dir)).toBe('');
    expect(await recentCommitSubjects(dir, 5)).toEqual(['one']);
  });

  it('a linked worktree: its own HEAD, the shared refs and objects', async () => {
    const dir = repoWithCommits(['base work']);
    const wt = path.join(base, 'wt');
    git(dir, 'worktree', 'add', '-q', '-b', 'fix/pool-leak', wt);
    git(wt, 'commit', '-q', '--allow-empty', '-m', 'close the pool');
    expect(currentBranch(path.join(wt))).toBe('fix/pool-leak');
    expect(await recentCommitSubjects(wt, 5)).toEqual(['close the pool', 'base work']);
  });

  it('a shallow clone: the subjects it has, not a failure', async () => {
    const dir = repoWithCommits(['a', 'b', 'c']);
    const clone = path.join(base, 'clone');
    spawnSync('git', ['clone', '-q', '--depth', '2', `file://${dir}`, clone], { env: ENV });
    expect(await recentCommitSubjects(clone, 5)).toEqual(['c', 'b']);
    expect(originName(clone)).toBe('repo');
  });

  it('an unborn branch, or outside any repository: nothing', async () => {
    const dir = repoWithCommits([]);
    expect(headCommit(dir)).toBeNull();
    expect(await recentCommitSubjects(dir, 5)).toEqual([]);
    expect(await recentCommitSubjects(os.tmpdir() === '/' ? '/' : path.parse(os.tmpdir()).root, 5)).toEqual([]);
  });

  it('GIT_* variables of the caller redirect nothing', async () => {
    const dir = repoWithCommits(['mine']);
    const other = repoWithCommits(['other'], 'other');
    const subjects = await recentCommitSubjects(dir, 5, {
      ...ENV,
      GIT_DIR: path.join(other, '.git'),
      GIT_CONFIG_PARAMETERS: "'log.showsignature=true'",
    });
    expect(subjects).toEqual(['mine']);
  });

  it('a HEAD naming a path outside refs/ is not followed, and a reftable HEAD names no branch', () => {
    const dir = repoWithCommits(['x']);
    fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/../../../../etc/hostname\n');
    expect(headCommit(dir)).toBeNull();
    expect(currentBranch(dir)).toBe('');
    fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/.invalid\n');
    expect(currentBranch(dir)).toBe('');
  });

  it('origin url parsed as git writes it: quotes, comments, other remotes and sections', () => {
    const text = [
      '[core]',
      '\turl = not-this',
      '[remote "upstream"]',
      '\turl = https://example.com/up/stream.git',
      '[remote "origin"]',
      '\tfetch = +refs/heads/*:refs/remotes/origin/*',
      '\tURL = "https://example.com/acme/shop api.git" ; a comment',
      '\turl = https://example.com/second.git',
      '[branch "main"]',
      '\tremote = origin',
    ].join('\n');
    expect(originUrl(text)).toBe('https://example.com/acme/shop api.git');
    expect(originUrl('[remote "origin"]\n\tfetch = x\n')).toBe('');
  });
});
