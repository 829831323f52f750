import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../pipeline/config/config.js';
import { resolveScope, sanitiseBranch } from '../../pipeline/scope.js';

let base = '';
afterEach(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

function setup(populate: string[]): string {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-scope-'));
  for (const rel of populate) {
    fs.mkdirSync(path.join(base, rel, 'documents'), { recursive: true });
    fs.writeFileSync(path.join(base, rel, 'documents', 'n.md'), '---\nid: n\n---\nx\n');
  }
  return base;
}

const env = (root: string, extra: Record<string, string> = {}) =>
  loadConfig({ HOME: root, RECALL_LEARNINGS_ROOT: root, CLAUDE_PROJECT_DIR: '/srv/Alpha-Service', RECALL_BRANCH: '', ...extra });

describe('resolveScope', () => {
  it('prefers --kb, then GLOBAL_LEARNINGS_PATH, then --global', () => {
    const root = setup(['shards/alpha-service']);
    expect(resolveScope(env(root), { kb: '/x/kb' })).toMatchObject({ root: '/x/kb', kind: 'explicit' });
    expect(resolveScope(env(root, { GLOBAL_LEARNINGS_PATH: '/g' }))).toMatchObject({ root: '/g', kind: 'env' });
    expect(resolveScope(env(root), { global: true })).toMatchObject({ root, kind: 'global' });
    expect(resolveScope(env(root, { RECALL_GLOBAL: 'yes' }))).toMatchObject({ root, kind: 'global' });
  });

  it('uses the populated project shard on trunk and the branch shard on a branch', () => {
    const root = setup(['shards/alpha-service', 'shards/alpha-service/branches/feat__auth']);
    expect(resolveScope(env(root))).toMatchObject({ root: path.join(root, 'shards/alpha-service'), kind: 'project-shard' });
    expect(resolveScope(env(root, { RECALL_BRANCH: 'feat/auth' }))).toMatchObject({
      root: path.join(root, 'shards/alpha-service/branches/feat__auth'),
      kind: 'branch-shard',
    });
    expect(resolveScope(env(root, { RECALL_BRANCH: 'feat/auth' }), { allBranches: true })).toMatchObject({ kind: 'project-shard' });
  });

  it('reads the project shard on a branch without a shard of its own, and says why', () => {
    const root = setup(['shards/alpha-service']);
    const s = resolveScope(env(root, { RECALL_BRANCH: 'feat/no-shard' }));
    expect(s).toMatchObject({ root: path.join(root, 'shards/alpha-service'), kind: 'project-shard', branch: 'feat__no-shard' });
    expect(s.reason).toBe('project shard of alpha-service; branch feat__no-shard has no shard of its own');
    expect(resolveScope(env(root), { kb: '/x' }).reason).toBe('--kb');
  });

  it('falls back to the pooled KB when the shard has no documents/*.md', () => {
    const root = setup([]);
    fs.mkdirSync(path.join(root, 'shards/alpha-service/documents'), { recursive: true });
    expect(resolveScope(env(root))).toMatchObject({ root, kind: 'pooled' });
    expect(resolveScope(env(root, { RECALL_BRANCH: 'feat/other' }))).toMatchObject({ root, kind: 'pooled' });
  });
});

describe('sanitiseBranch', () => {
  it.each([
    ['feat/auth', 'feat__auth'],
    ['Feat/Auth', 'feat__auth'],
    ['hotfix\\win', 'hotfix__win'],
    ['with space', 'with__space'],
    ['main', ''],
    ['master', ''],
    ['HEAD', ''],
    ['', ''],
  ])('%j → %j', (raw, want) => expect(sanitiseBranch(raw)).toBe(want));
});

describe('loadConfig', () => {
  it('refuses alphas outside 0..2 and junk: the default is used, with a warning', () => {
    const c = loadConfig({
      HOME: '/h',
      RECALL_CONFIDENCE_ALPHA: '99',
      RECALL_RECENCY_ALPHA: '-3',
      RECALL_TAG_ALPHA: 'junk',
      RECALL_PROOF_ALPHA: '0.5',
    });
    expect(c.alphas).toMatchObject({ confidence: 0.2, recency: 0.2, tags: 0.2, proof: 0.5, project: 0.2, authority: 0.1 });
    expect(c.warnings).toEqual([
      'RECALL_CONFIDENCE_ALPHA="99" is outside 0..2; using 0.2',
      'RECALL_RECENCY_ALPHA="-3" is outside 0..2; using 0.2',
      'RECALL_TAG_ALPHA="junk" is not a valid number; using 0.2',
    ]);
  });

  it('reads timeouts in seconds and floors in 0..1', () => {
    const c = loadConfig({ HOME: '/h', RECALL_BM25_TIMEOUT: '2.5', RECALL_ARM_BM25_MIN_SCORE: '7', RECALL_VECTOR_TIMEOUT: 'soon' });
    expect(c.armTimeoutsMs).toMatchObject({ bm25: 2500, vector: 60000, graph: 60000 });
    expect(c.armFloors.bm25).toBe(0);
    expect(c.warnings).toHaveLength(2);
  });
});

describe('git detection without spawning git', () => {
  it('finds the work tree root and branch from .git (folder or worktree file) and treats detached HEAD as trunk', async () => {
    const { findRepo, detectBranch, detectProject } = await import('../../pipeline/scope.js');
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-git-'));
    const repo = path.join(base, 'My-Repo');
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.git', 'HEAD'), 'ref: refs/heads/feat/auth\n');
    const cfg = loadConfig({ HOME: base });
    expect(findRepo(path.join(repo, 'src', 'deep'))).toEqual({ top: repo, gitDir: path.join(repo, '.git') });
    expect(detectProject(cfg, path.join(repo, 'src'))).toBe('my-repo');
    expect(detectBranch(cfg, path.join(repo, 'src'))).toBe('feat__auth');
    // A linked worktree: .git is a file pointing at the real git dir.
    const wt = path.join(base, 'wt');
    const wtGit = path.join(repo, '.git', 'worktrees', 'wt');
    fs.mkdirSync(wtGit, { recursive: true });
    fs.mkdirSync(wt);
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${wtGit}\n`);
    fs.writeFileSync(path.join(wtGit, 'HEAD'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4\n');
    expect(findRepo(wt)).toEqual({ top: wt, gitDir: wtGit });
    expect(detectBranch(cfg, wt)).toBe('');
    expect(findRepo(os.tmpdir() === '/' ? '/' : path.parse(os.tmpdir()).root)).toBeNull();
  });
});
