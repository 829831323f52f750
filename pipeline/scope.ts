/**
 * Which KB a recall reads, first match wins:
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
import type { RecallConfig } from './config/index.js';
import { currentBranch, findRepo, originName } from '../sources/git.js';

export { findRepo } from '../sources/git.js';

export type ScopeKind =
  | 'explicit'
  | 'env'
  | 'global'
  | 'branch-shard'
  | 'project-shard'
  | 'pooled'
  /** One of the `kbs` list (RECALL_KBS). */
  | 'configured'
  /** A harness's own memory folder, read-only (pipeline/kb-sources). */
  | 'claude-memory'
  | 'codex-memory';

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

/*
 * What a project is, for all of recall: the folder $CLAUDE_PROJECT_DIR names, else the git work
 * tree holding the current directory (none outside both). Its folder holds its settings
 * (`.reflect/config.json`); its folder name, lower-cased, names its shard of the pooled KB. The
 * session-start query and the reflect.db tables know a project by its id instead: the name of its
 * origin remote, which is the folder name for an ordinary clone (see projectId).
 */

/** The project's folder: $CLAUDE_PROJECT_DIR, else the git work tree root of `cwd`; null outside both. */
export function projectDirOf(config: RecallConfig, cwd: string): string | null {
  return config.scope.projectDir ?? findRepo(cwd)?.top ?? null;
}

/** Project name for shard resolution: the project folder's name, lower-cased; '' outside a project. */
export function detectProject(config: RecallConfig, cwd: string): string {
  const dir = projectDirOf(config, cwd) ?? '';
  if (!dir) return '';
  return path.basename(dir.replace(/[/\\]+$/, '')).toLowerCase();
}

/**
 * Project id as the reference's session-start query and reflect.db tables use it: the origin
 * remote's repository name, else the name of the current directory.
 */
export function projectId(cwd: string): string {
  return originName(cwd) || path.basename(path.resolve(cwd));
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

/** Branch for shard resolution: RECALL_BRANCH when set (even empty), else git's current branch; sanitised. */
export function detectBranch(config: RecallConfig, cwd: string): string {
  return sanitiseBranch(config.scope.branch ?? currentBranch(cwd));
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
