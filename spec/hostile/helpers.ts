/**
 * Running the built hook entries and CLI (`npm test` builds first) as a harness would, with a wall
 * clock: a child still running past `killAfterMs` is killed (its whole process group) and reported.
 */
import { expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ask } from '../../sources/recall-server/ask.js';
import { PROTOCOL_VERSION, serverSocketPath, type ServerStatus } from '../../sources/recall-server/protocol.js';
import { waitFor } from '../helpers/wait.js';
import { hostileKb, runProcess, type HostileKb, type Run, type RunOptions } from '../../scripts/hostile/processes.js';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const hookEntry = (name: string): string => path.join(repo, 'dist', 'hooks', `${name}.js`);
export const cliEntry = path.join(repo, 'dist', 'bundle', 'recall.mjs');

/**
 * Slack allowed past a hook's own deadline for node's exit and a loaded CI machine; every harness
 * timeout written in hooks.json is further out than deadline + margin (asserted in deadlines.test).
 */
export const HARNESS_MARGIN_MS = 2500;

export { runProcess, type Run, type RunOptions } from '../../scripts/hostile/processes.js';

export const runHook = (name: string, o: RunOptions): Promise<Run> => runProcess([process.execPath, hookEntry(name)], o);
export const runCli = (args: string[], o: RunOptions): Promise<Run> => runProcess([process.execPath, cliEntry, ...args], o);

/** The hook answered in time with exactly one strict-JSON envelope and exit 0; returns its context. */
export function expectEnvelope(r: Run, deadlineMs: number): string {
  expect(r.killed).toBe(false);
  // The exit status with what the process said on stderr, so a failure shows why.
  expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
  expect(r.ms).toBeLessThan(deadlineMs + HARNESS_MARGIN_MS);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  // A lone surrogate escape makes strict parsers (Codex) reject the whole answer.
  expect(lines[0]).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
  const v = JSON.parse(lines[0]!) as { hookSpecificOutput?: { additionalContext?: string }; additionalContext?: string };
  return v.hookSpecificOutput?.additionalContext ?? v.additionalContext ?? '';
}

export { note } from '../../scripts/hostile/processes.js';

export interface Case extends HostileKb {
  cleanup(): void;
}

/** A temp KB with two postgres notes and its own state dir (see hostileKb), removed by cleanup(). */
export function hostileCase(): Case {
  const c = hostileKb();
  return { ...c, cleanup: () => fs.rmSync(c.base, { recursive: true, force: true }) };
}

export const prompt = (text = 'postgres connection pool exhausted in tests', session = 's1'): string =>
  JSON.stringify({ session_id: session, prompt: text, cwd: os.tmpdir() });

/** A generated KB of `n` notes with sidecars (the bench generator), in a temp dir. */
export function generatedKb(n: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hostile-big-'));
  const r = spawnSync(process.execPath, [path.join(repo, 'dist', 'scripts', 'bench.js'), '--generate', dir, '--size', String(n)], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`KB generation failed: ${r.stderr}`);
  return dir;
}

/** Notes in the index file of the state dir (read with the index's own driver, read-only). */
export async function indexedNotes(state: string): Promise<number> {
  const dir = path.join(state, 'index');
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.sqlite')) : undefined;
  if (!file) return 0;
  const { openDatabase } = await import('../../sources/sqlite/sqlite.js');
  const abs = path.join(dir, file);
  // Said as recall's own readers say it: a wasm-driver refresh then leaves this read a gap.
  const mark = path.join(`${abs}.readers`, String(process.pid));
  if (abs.endsWith('.wasm.sqlite')) {
    fs.mkdirSync(path.dirname(mark), { recursive: true, mode: 0o700 });
    fs.writeFileSync(mark, '', { mode: 0o600 });
  }
  try {
    const db = openDatabase(abs, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      return (db.prepare('SELECT COUNT(*) AS c FROM notes').get() as { c: number }).c;
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(mark, { force: true });
  }
}

/** The entries of the state dir's recall log (one per recall: its caller, what degraded it). */
export function recallLog(state: string): { caller?: string; degraded?: string[] }[] {
  const file = path.join(state, 'recall_log.jsonl');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  return text ? text.split('\n').map((l) => JSON.parse(l) as { caller?: string; degraded?: string[] }) : [];
}

export function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

export { sleep, waitFor } from '../helpers/wait.js';

/** The status answer of the recall server of `env`, or null when it gives none within `ms`. */
export async function serverStatus(env: NodeJS.ProcessEnv, ms: number): Promise<ServerStatus | null> {
  const out = await ask(serverSocketPath(env), { op: 'status', v: PROTOCOL_VERSION }, ms, Date.now() + ms);
  return 'answer' in out && 'status' in out.answer ? out.answer.status : null;
}

/** Whether the recall server of `env` answers a status request within `ms`. */
export async function serverAnswers(env: NodeJS.ProcessEnv, ms: number): Promise<boolean> {
  const out = await ask(serverSocketPath(env), { op: 'status', v: PROTOCOL_VERSION }, ms, Date.now() + ms);
  return !('failed' in out);
}

/**
 * Start the recall server of `env` (with `args` after its socket) and wait until `ready` holds
 * (by default: it answers). Stop it with stopServer.
 */
export async function startServer(
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  ready: () => Promise<boolean> = () => serverAnswers(env, 1000),
): Promise<ChildProcess> {
  const socket = serverSocketPath(env);
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const server = spawn(process.execPath, [path.join(repo, 'dist', 'bundle', 'server.mjs'), '--socket', socket, ...args], {
    env,
    stdio: 'ignore',
  });
  if (!(await waitFor(ready, 60_000, 100))) throw new Error('the recall server did not start');
  return server;
}

/** Stop a server startServer started: asked first, then killed. */
export async function stopServer(server: ChildProcess, env: NodeJS.ProcessEnv): Promise<void> {
  await runCli(['daemon', 'stop'], { env, killAfterMs: 20_000 });
  server.kill('SIGKILL');
}
