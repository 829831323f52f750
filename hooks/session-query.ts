/**
 * The SessionStart query: a bag of keywords, not a sentence (the session has not said what it is
 * about yet, so the query is what the project, branch and recent commits are about).
 *   1. project name: basename of `git remote get-url origin` minus `.git`, else the cwd basename;
 *   2. the branch, unless main/master/detached, as words (`feat/foo-bar` → `foo bar`: a leading
 *      branch-type segment is dropped, slashes, underscores and hyphens become spaces);
 *   3. up to 3 tokens from the last 5 commit subjects (3+ chars, conventional-commit words and filler
 *      dropped, most frequent first);
 *   4. up to 3 more from the last 5 records of <state>/commits.jsonl (written by a post-commit hook);
 *   5. lower-cased and deduplicated in order. The commit tokens are also the query tags.
 * The commit subjects come from git run without the repository's configuration (sources/git.ts),
 * asynchronously and with a 5 s timeout; a failure contributes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { currentBranch, recentCommitSubjects } from '../sources/git.js';
import { projectId } from '../pipeline/scope.js';

export { currentBranch } from '../sources/git.js';

/** Words of commit subjects that say nothing about the topic. */
const FILLER = new Set(
  'fix feat chore docs test refactor build ci perf style the a an of to for on in at and or add remove update change merge pull request pr wip'.split(
    ' ',
  ),
);
/** Branch-type prefixes dropped from branch names (`feat/x` → `x`). */
const BRANCH_TYPES = new Set('feat feature fix bugfix hotfix chore docs refactor test ci build perf release'.split(' '));

export function branchWords(branch: string): string[] {
  const b = branch.trim();
  if (!b || b === 'main' || b === 'master' || b === 'HEAD') return [];
  const segments = b.split('/');
  if (segments.length > 1 && BRANCH_TYPES.has(segments[0]!.toLowerCase())) segments.shift();
  return segments
    .join('/')
    .split(/[/_\-\s]+/)
    .filter(Boolean);
}

/** Most frequent topical tokens of some subjects (ties alphabetical), at most `n`. */
export function rankTokens(subjects: readonly string[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const s of subjects) {
    for (const m of s.matchAll(/[a-zA-Z][a-zA-Z0-9_-]{2,}/g)) {
      const t = m[0].toLowerCase();
      if (FILLER.has(t)) continue;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([t]) => t);
}

function recentCommitRecords(stateDir: string): string[] {
  try {
    const lines = fs
      .readFileSync(path.join(stateDir, 'commits.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    return lines.slice(-5).flatMap((l) => {
      try {
        const m = (JSON.parse(l) as { message?: unknown }).message;
        return typeof m === 'string' ? [m.split('\n')[0] ?? ''] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

export interface SessionQuery {
  query: string;
  tags: string[];
  project: string;
  branch: string;
}

export async function buildSessionQuery(cwd: string, stateDir: string, env: NodeJS.ProcessEnv = process.env): Promise<SessionQuery> {
  const project = projectId(cwd);
  const branch = currentBranch(cwd);
  const gitTags = rankTokens(await recentCommitSubjects(cwd, 5, env), 3);
  const recordTags = rankTokens(recentCommitRecords(stateDir), 3).filter((t) => !gitTags.includes(t));
  const tags = [...gitTags, ...recordTags];
  const words: string[] = [];
  for (const w of [project, ...branchWords(branch), ...tags].flatMap((x) => x.split(/\s+/))) {
    const lw = w.toLowerCase();
    if (lw && !words.includes(lw)) words.push(lw);
  }
  return { query: words.join(' '), tags, project, branch };
}
