/**
 * Finding a harness's memory where the harness itself looks. The expected slugs were produced by
 * the path function bundled in Claude Code 2.1.197 (extracted from the installed client and run on
 * the same inputs), so a drift from Claude Code's naming fails here.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claudeMemoryDir, claudeProjectRoot, claudeProjectSlug, codexMemoryDir } from '../../sources/harness-memory/index.js';

const made: string[] = [];
const tmp = (): string => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hm-')));
  made.push(d);
  return d;
};
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('claudeProjectSlug', () => {
  it('turns every character that is not an ASCII letter or digit into "-", as Claude Code does', () => {
    expect(claudeProjectSlug('/tmp/zc/proj')).toBe('-tmp-zc-proj');
    expect(claudeProjectSlug('/home/dev/my.project_v2')).toBe('-home-dev-my-project-v2');
    expect(claudeProjectSlug('/home/ü/naïve')).toBe('-home---na-ve');
    expect(claudeProjectSlug('C:\\Users\\x\\repo')).toBe('C--Users-x-repo');
  });

  it('keeps 200 characters of a longer path and appends the hash Claude Code appends', () => {
    const long = claudeProjectSlug(`/a/${'very-long-folder-name/'.repeat(12)}`);
    expect(long).toHaveLength(207);
    expect(long.endsWith('-name-aptpzl')).toBe(true);
    const wide = claudeProjectSlug(`/x/${'é'.repeat(250)}`);
    expect(wide).toHaveLength(207);
    expect(wide.endsWith('-9cs5s6')).toBe(true);
  });
});

describe('claudeMemoryDir', () => {
  it('keys the memory by the git work tree, a linked worktree counting as its main checkout', () => {
    const d = tmp();
    const main = path.join(d, 'repo');
    fs.mkdirSync(path.join(main, '.git', 'worktrees', 'feat'), { recursive: true });
    fs.mkdirSync(path.join(main, 'src', 'deep'), { recursive: true });
    const wt = path.join(d, 'repo-feat');
    fs.mkdirSync(path.join(wt, 'lib'), { recursive: true });
    const gitDir = path.join(main, '.git', 'worktrees', 'feat');
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${gitDir}\n`);
    fs.writeFileSync(path.join(gitDir, 'commondir'), '../..\n');
    fs.writeFileSync(path.join(gitDir, 'gitdir'), `${path.join(wt, '.git')}\n`);
    expect(claudeProjectRoot(path.join(main, 'src', 'deep'))).toBe(main);
    expect(claudeProjectRoot(path.join(wt, 'lib'))).toBe(main);
    // A .git file whose git dir does not point back is not trusted as a worktree of that repository.
    fs.writeFileSync(path.join(gitDir, 'gitdir'), '/elsewhere/.git\n');
    expect(claudeProjectRoot(wt)).toBe(wt);
    // Outside git: the folder itself.
    const plain = path.join(d, 'plain');
    fs.mkdirSync(plain);
    expect(claudeProjectRoot(plain)).toBe(plain);
    const home = path.join(d, 'home');
    expect(claudeMemoryDir(path.join(main, 'src'), {}, home).dir).toBe(
      path.join(home, '.claude', 'projects', claudeProjectSlug(main), 'memory'),
    );
  });

  it('follows $CLAUDE_CONFIG_DIR and a user autoMemoryDirectory', () => {
    const d = tmp();
    const home = path.join(d, 'home');
    const conf = path.join(d, 'conf');
    expect(claudeMemoryDir(d, { CLAUDE_CONFIG_DIR: conf }, home).dir).toBe(path.join(conf, 'projects', claudeProjectSlug(d), 'memory'));
    fs.mkdirSync(conf, { recursive: true });
    fs.writeFileSync(path.join(conf, 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/notes/memory' }));
    expect(claudeMemoryDir(d, { CLAUDE_CONFIG_DIR: conf }, home)).toMatchObject({ dir: path.join(home, 'notes', 'memory') });
    // A settings file that is not JSON is ignored, never fatal.
    fs.writeFileSync(path.join(conf, 'settings.json'), '{ nope');
    expect(claudeMemoryDir(d, { CLAUDE_CONFIG_DIR: conf }, home).dir).toBe(path.join(conf, 'projects', claudeProjectSlug(d), 'memory'));
  });
});

describe('codexMemoryDir', () => {
  it('is $CODEX_HOME/memories, else ~/.codex/memories', () => {
    expect(codexMemoryDir({}, '/h').dir).toBe(path.join('/h', '.codex', 'memories'));
    expect(codexMemoryDir({ CODEX_HOME: '/c' }, '/h').dir).toBe(path.join('/c', 'memories'));
  });
});
