/**
 * A fresh HOME holding only Claude Code's memory folder for one git project, and the ways a user
 * meets recall there: the CLI and the real prompt hook (`bin/recall hook user-prompt-submit`, real
 * hook JSON on stdin), run in the project.
 */
import { expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { driverEnv } from './driver.js';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repo, 'bin', 'recall');

export interface ZeroConfigWorld {
  root: string;
  home: string;
  project: string;
  memory: string;
  baseEnv: (extra?: Record<string, string>) => NodeJS.ProcessEnv;
  recall(args: string[], opts?: { input?: string; env?: Record<string, string> }): { code: number | null; stdout: string; stderr: string };
  promptHook(prompt: string, sessionId: string, env?: Record<string, string>): string;
  savedFiles(): string[];
  readSaved(): string;
  cleanup(): void;
}

export function zeroConfigWorld(): ZeroConfigWorld {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-zero-')));
  const home = path.join(root, 'home');
  // A git work tree named like a real one, with characters Claude Code turns into dashes.
  const project = path.join(root, 'work', 'shop.api_v2');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  fs.writeFileSync(path.join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  // Claude Code's folder for the project: every character that is not a letter or digit becomes "-".
  const memory = path.join(home, '.claude', 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'), 'memory');
  fs.mkdirSync(memory, { recursive: true });
  fs.writeFileSync(path.join(memory, 'MEMORY.md'), '- [Merge freeze](merge_freeze.md) — no merges to main on release Friday\n');
  fs.writeFileSync(
    path.join(memory, 'merge_freeze.md'),
    [
      '---',
      'name: merge-freeze',
      'description: main is frozen every Friday before the release; merge pull requests by Thursday evening.',
      'metadata:',
      '  type: project',
      '---',
      'main is frozen every Friday before the release.',
      '',
      '**Why:** the release branch is cut on Friday morning.',
      '**How to apply:** land pull requests by Thursday evening; on Friday, queue them for Monday.',
      '',
    ].join('\n'),
  );
  const baseEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    ...driverEnv(),
    ...extra,
  });

  function recall(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
    const r = spawnSync(bin, args, { input: opts.input ?? '', env: baseEnv(opts.env), cwd: project, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** What the prompt hook injects for `prompt` in the project (its one envelope's additionalContext). */
  function promptHook(prompt: string, sessionId: string, env: Record<string, string> = {}): string {
    const input = JSON.stringify({ session_id: sessionId, hook_event_name: 'UserPromptSubmit', cwd: project, prompt });
    const out = recall(['hook', 'user-prompt-submit'], { input, env });
    expect(out.code).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const e = JSON.parse(lines[0]!) as { hookSpecificOutput?: { additionalContext?: string } };
    return e.hookSpecificOutput?.additionalContext ?? '';
  }

  const savedFiles = (): string[] => {
    const docs = path.join(home, '.learnings', 'documents');
    return fs.existsSync(docs) ? fs.readdirSync(docs).filter((n) => n.endsWith('.md')) : [];
  };
  const readSaved = (): string =>
    savedFiles()
      .map((n) => fs.readFileSync(path.join(home, '.learnings', 'documents', n), 'utf8'))
      .join('\n');
  return {
    root,
    home,
    project,
    memory,
    baseEnv,
    recall,
    promptHook,
    savedFiles,
    readSaved,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
