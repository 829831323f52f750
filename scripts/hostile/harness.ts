/**
 * The measuring harness of scripts/hostile.ts: command-line options, a process runner with a cap,
 * envelope checks, fresh throwaway KBs and state dirs, and the generated big KB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hostileKb, runProcess, type HostileKb, type Run, type RunOptions } from './processes.js';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : def;
};
export const repo = path.resolve(opt('repo', here));
export const CAP_MS = Number(opt('cap', '45')) * 1000;
export const only = opt('only', '').split(',').filter(Boolean);
export const BIG = Number(opt('size', '20000'));

export type { Run } from './processes.js';
export { note } from './processes.js';

/** A process run with the harness's cap (`--cap`, default 45 s) unless the case sets its own. */
export function run(argv: string[], o: RunOptions): Promise<Run> {
  return runProcess(argv, { ...o, killAfterMs: o.killAfterMs ?? CAP_MS });
}

export const hook = (name: string): string[] => [process.execPath, path.join(repo, 'dist', 'hooks', `${name}.js`)];
export const cli = (...a: string[]): string[] => [process.execPath, path.join(repo, 'dist', 'bundle', 'recall.mjs'), ...a];

export function envelopeOk(out: string): boolean {
  const lines = out.trim().split('\n');
  if (lines.length !== 1 || !lines[0]) return false;
  try {
    const v = JSON.parse(lines[0]) as unknown;
    return !!v && typeof v === 'object' && !/\\ud[89a-f][0-9a-f]{2}/i.test(lines[0]);
  } catch {
    return false;
  }
}

export function contextOf(out: string): string {
  try {
    const v = JSON.parse(out.trim()) as { hookSpecificOutput?: { additionalContext?: string }; additionalContext?: string };
    return v.hookSpecificOutput?.additionalContext ?? v.additionalContext ?? '';
  } catch {
    return '';
  }
}

export type Case = HostileKb;

/** Every case folder made so far (removed at the end of the run). */
const caseDirs: string[] = [];

export function freshCase(): Case {
  const c = hostileKb();
  caseDirs.push(c.base);
  return c;
}

export const PROMPT = JSON.stringify({ session_id: 's1', prompt: 'postgres connection pool exhausted in tests', cwd: os.tmpdir() });

export function row(name: string, r: Run, detail: string): void {
  const ms = r.killed ? `> ${(r.ms / 1000).toFixed(1)} s (killed)` : `${Math.round(r.ms)} ms`;
  process.stdout.write(`| ${name} | ${ms} | ${r.code ?? '-'} | ${envelopeOk(r.stdout) ? 'yes' : 'no'} | ${detail} |\n`);
}

export function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    try {
      if (e.isFile()) n += fs.statSync(path.join(e.parentPath, e.name)).size;
    } catch {
      /* raced */
    }
  }
  return n;
}

export function indexedNotes(state: string): number {
  const dir = path.join(state, 'index');
  if (!fs.existsSync(dir)) return 0;
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.sqlite'));
  if (!file) return 0;
  try {
    const out = execFileSync('sqlite3', [path.join(dir, file), 'SELECT COUNT(*) FROM notes'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return Number(out.trim()) || 0;
  } catch {
    return -1;
  }
}

let bigKb: string | null = null;
/**
 * Remove the case folders and the generated big KB. A recall server that a hook started for a case
 * sees its state dir go and exits, so a run leaves no process behind either.
 */
export function removeCaseDirs(): void {
  for (const dir of [...caseDirs, ...(bigKb ? [bigKb] : [])]) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    } catch (err) {
      process.stderr.write(`hostile: could not remove ${dir}: ${(err as Error).message.split('\n')[0]}\n`);
    }
  }
}

export function bigKbDir(): string {
  if (bigKb) return bigKb;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hostile-big-'));
  spawnSync(process.execPath, [path.join(here, 'dist', 'scripts', 'bench.js'), '--generate', dir, '--size', String(BIG)], {
    stdio: 'ignore',
  });
  bigKb = dir;
  return dir;
}

/** A prompt of one hyphen-joined word repeated, on the big KB (indexed first: the query is what is timed). */
export async function hyphenCase(words: number, label: string): Promise<void> {
  const c = freshCase();
  const env = { ...c.env, GLOBAL_LEARNINGS_PATH: bigKbDir() };
  await run(cli('index', '--kb', bigKbDir()), { env });
  const prompt = Array.from({ length: words }, () => 'pool').join('-');
  const r = await run(hook('user-prompt-submit'), { env, stdin: JSON.stringify({ session_id: 's', prompt }) });
  row(`${label} hyphen-joined prompt (${BIG / 1000}k KB)`, r, `context ${contextOf(r.stdout).length} chars`);
}
