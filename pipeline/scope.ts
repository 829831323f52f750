/**
 * Which KB a recall reads (seed "Scope"), first match wins:
 *   0. --kb DIR (explicit override);
 *   1. $GLOBAL_LEARNINGS_PATH, untouched;
 *   2. --global / RECALL_GLOBAL=1: the pooled KB (~/.learnings, or RECALL_LEARNINGS_ROOT);
 *   3. current project + non-trunk branch: <root>/shards/<project>/branches/<branch>/;
 *   4. current project on trunk or detached: <root>/shards/<project>/;
 *   5. anything else: the pooled KB.
 * A shard counts only when it has notes (documents/*.md). A branch without a shard of its own reads
 * the project shard (its notes are the project's too; the reference fell to the pooled KB there,
 * which made a project's notes vanish on every feature branch). --all-branches /
 * RECALL_ALL_BRANCHES=1 skips the branch level. Every scope carries a one-line reason, shown by
 * `--verbose`, `--format json` and `recall status`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { RecallConfig } from './config.js';

export type ScopeKind = 'explicit' | 'env' | 'global' | 'branch-shard' | 'project-shard' | 'pooled';

export interface Scope {
  root: string;
  kind: ScopeKind;
  /** Project used for shard resolution ('' when unknown or not needed). */
  project: string;
  branch: string;
  /** Why this KB was chosen, in words (`--kb`, "branch shard of project P", …). */
  reason: string;
}

export interface ScopeOptions {
  kb?: string | null;
  global?: boolean;
  allBranches?: boolean;
  cwd?: string;
}

/** Timeout for the git calls of project/branch detection (reference value). */
const GIT_TIMEOUT_MS = 5000;

function git(args: string[], cwd: string): string {
  try {
    return execFileSync('git', args, { cwd, timeout: GIT_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/**
 * The work tree root holding `cwd` and its git dir, found by walking up to the nearest `.git`
 * (a folder, or a file `gitdir: …` in linked worktrees) — what `git rev-parse --show-toplevel`
 * answers, without spawning git on every recall. null outside a repository.
 */
export function findRepo(cwd: string): { top: string; gitDir: string } | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    try {
      const st = fs.statSync(dotGit);
      if (st.isDirectory()) return { top: dir, gitDir: dotGit };
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
      if (m) return { top: dir, gitDir: path.resolve(dir, m[1]!.trim()) };
    } catch {
      /* not here */
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Current branch from the repository's HEAD file ('' when detached or unreadable). */
function headBranch(gitDir: string): string | null {
  try {
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    const m = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    return m ? m[1]! : 'HEAD';
  } catch {
    return null;
  }
}

/** Project identity: basename of $CLAUDE_PROJECT_DIR, else of the git work tree root; lower-cased; '' if neither. */
export function detectProject(config: RecallConfig, cwd: string): string {
  const dir = config.scope.projectDir ?? findRepo(cwd)?.top ?? '';
  if (!dir) return '';
  return path.basename(dir.replace(/[/\\]+$/, '')).toLowerCase();
}

/** Branch as a shard folder name: trunk (main/master/HEAD/'') → ''; `/ \ : whitespace` runs → `__`. */
export function sanitiseBranch(raw: string): string {
  let b = raw.trim();
  if (b === '' || b === 'main' || b === 'master') return '';
  b = b
    .replace(/[/\\\s:]+/g, '__')
    .replace(/^[._]+|[._]+$/g, '')
    .toLowerCase();
  return b === 'head' ? '' : b;
}

export function detectBranch(config: RecallConfig, cwd: string): string {
  const repo = config.scope.branch === null ? findRepo(cwd) : null;
  const raw = config.scope.branch ?? (repo ? (headBranch(repo.gitDir) ?? git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd)) : '');
  return sanitiseBranch(raw);
}

/** A shard counts only when it has at least one documents/*.md (flat). */
export function isPopulated(root: string): boolean {
  try {
    return fs.readdirSync(path.join(root, 'documents')).some((n) => n.toLowerCase().endsWith('.md'));
  } catch {
    return false;
  }
}

export function resolveScope(config: RecallConfig, opts: ScopeOptions = {}): Scope {
  const cwd = opts.cwd ?? process.cwd();
  if (opts.kb) return { root: path.resolve(cwd, opts.kb), kind: 'explicit', project: '', branch: '', reason: '--kb' };
  if (config.scope.globalLearningsPath)
    return { root: config.scope.globalLearningsPath, kind: 'env', project: '', branch: '', reason: '$GLOBAL_LEARNINGS_PATH' };
  const pooled = config.scope.learningsRoot;
  if (opts.global || config.scope.global)
    return { root: pooled, kind: 'global', project: '', branch: '', reason: opts.global ? '--global' : 'RECALL_GLOBAL' };
  const project = detectProject(config, cwd);
  if (!project)
    return {
      root: pooled,
      kind: 'pooled',
      project: '',
      branch: '',
      reason: 'pooled KB: not inside a project (no git work tree, no $CLAUDE_PROJECT_DIR)',
    };
  const skipBranch = opts.allBranches || config.scope.allBranches;
  const branch = skipBranch ? '' : detectBranch(config, cwd);
  const shard = path.join(pooled, 'shards', project);
  const branchShard = branch ? path.join(shard, 'branches', branch) : null;
  if (branchShard && isPopulated(branchShard)) {
    return { root: branchShard, kind: 'branch-shard', project, branch, reason: `branch shard of project ${project}, branch ${branch}` };
  }
  if (isPopulated(shard)) {
    const why = branch ? `; branch ${branch} has no shard of its own` : skipBranch ? ' (--all-branches)' : ' (trunk)';
    return { root: shard, kind: 'project-shard', project, branch, reason: `project shard of ${project}${why}` };
  }
  return { root: pooled, kind: 'pooled', project, branch, reason: `pooled KB: project ${project} has no shard with notes` };
}

/** Shards hold a single project's notes, so project affinity is neutral there. */
export function isShard(scope: Scope): boolean {
  return scope.kind === 'branch-shard' || scope.kind === 'project-shard';
}
