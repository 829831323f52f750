/**
 * What recall asks git about the work tree a session runs in: where the repository is, the current
 * branch, the origin remote's name and the latest commit subjects. The repository and the branch
 * are read from the `.git` files (no process spawned on every recall); the rest asks git itself,
 * with a timeout, and a failure answers nothing ('').
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/** Timeout of one git call (the reference's value). */
const GIT_TIMEOUT_MS = 5000;

/** Output of `git -C cwd ...args`, trimmed; '' when git fails, is missing or times out. */
export function runGit(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync('git', ['-C', cwd, ...args], {
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
    }).trim();
  } catch {
    return '';
  }
}

/**
 * The work tree root holding `cwd` and its git dir, found by walking up to the nearest `.git`
 * (a folder, or a file `gitdir: …` in linked worktrees) — what `git rev-parse --show-toplevel`
 * answers, without spawning git. null outside a repository.
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

/** Branch named by a git dir's HEAD file: the name, '' when detached, null when unreadable. */
function headBranch(gitDir: string): string | null {
  try {
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    const m = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    return m ? m[1]! : '';
  } catch {
    return null;
  }
}

/** Current branch of the work tree holding `cwd`: '' when detached or outside a repository. */
export function currentBranch(cwd: string): string {
  const repo = findRepo(cwd);
  if (!repo) return '';
  const head = headBranch(repo.gitDir);
  if (head !== null) return head;
  const asked = runGit(cwd, ['rev-parse', '--abbrev-ref', 'HEAD']);
  return asked === 'HEAD' ? '' : asked;
}

/** Name of the origin remote's repository (`…/name.git` → `name`); '' without one. */
export function originName(cwd: string): string {
  const remote = runGit(cwd, ['remote', 'get-url', 'origin']);
  return remote ? path.basename(remote.replace(/\/+$/, '')).replace(/\.git$/, '') : '';
}

/** Subjects of the latest `n` commits, newest first. */
export function recentCommitSubjects(cwd: string, n: number): string[] {
  return runGit(cwd, ['log', `-${n}`, '--format=%s'])
    .split('\n')
    .filter(Boolean);
}
