/**
 * The measuring harness of scripts/hostile.ts: command-line options, a process runner with a cap,
 * envelope checks, fresh throwaway KBs and state dirs, and the generated big KB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

export interface Run {
  ms: number;
  code: number | null;
  killed: boolean;
  stdout: string;
  stderr: string;
}

export function run(
  argv: string[],
  o: { env: NodeJS.ProcessEnv; stdin?: string; keepStdinOpen?: boolean; killAfterMs?: number; cwd?: string },
): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env: o.env, cwd: o.cwd ?? os.tmpdir(), detached: true });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString().slice(0, 2000)));
    child.stdin.on('error', () => undefined);
    if (o.stdin !== undefined) child.stdin.write(o.stdin);
    if (!o.keepStdinOpen) child.stdin.end();
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, o.killAfterMs ?? CAP_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ ms: performance.now() - t0, code, killed, stdout, stderr });
    });
  });
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

export function note(id: string, title: string, body: string, extra = ''): string {
  return `---\nid: ${id}\ntitle: ${JSON.stringify(title)}\nconfidence: medium\ntags: [test]\nkey_insight: ${JSON.stringify(title)}\n${extra}---\n## Learning\n\n${body}\n\n**How to apply:** ${title}\n`;
}

export interface Case {
  kb: string;
  state: string;
  base: string;
  env: NodeJS.ProcessEnv;
}

/** Every case folder made so far (removed at the end of the run). */
const caseDirs: string[] = [];

export function freshCase(): Case {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hostile-'));
  caseDirs.push(base);
  const kb = path.join(base, 'kb');
  const state = path.join(base, 'state');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  fs.writeFileSync(
    path.join(kb, 'documents', 'pool.md'),
    note('lrn-pool', 'postgres connection pool exhausted in tests', 'use one engine per test session'),
  );
  fs.writeFileSync(
    path.join(kb, 'documents', 'idle.md'),
    note('lrn-idle', 'postgres idle in transaction blocks vacuum', 'close transactions before slow work'),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '',
    HOME: state,
    REFLECT_STATE_DIR: state,
    GLOBAL_LEARNINGS_PATH: kb,
    REFLECT_NO_DAEMON: '1',
  };
  // RECALL_SQLITE_DRIVER=wasm node dist/scripts/hostile.js times the cases on that driver.
  if (process.env['RECALL_SQLITE_DRIVER']) env['RECALL_SQLITE_DRIVER'] = process.env['RECALL_SQLITE_DRIVER'];
  return { kb, state, base, env };
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
