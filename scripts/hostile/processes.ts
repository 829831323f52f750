/**
 * What the hostile harness (scripts/hostile.ts) and the hostile specs (spec/hostile/) both start
 * from: a throwaway KB with two postgres notes and its own state dir, and a process runner that
 * times a real hook or CLI process, feeds its stdin (or leaves it open) and kills its whole process
 * group past a cap. No command-line options are read here, so specs can import it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';

export interface Run {
  ms: number;
  code: number | null;
  killed: boolean;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  stdin?: string;
  keepStdinOpen?: boolean;
  /** Kill the process group after this long (default 60 s). */
  killAfterMs?: number;
  /** Kill the process group as soon as this settles (an event the caller waits for, not a time). */
  killWhen?: Promise<unknown>;
  cwd?: string;
}

export function runProcess(argv: string[], o: RunOptions): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env: o.env, cwd: o.cwd ?? os.tmpdir(), detached: true });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.on('error', () => undefined);
    if (o.stdin !== undefined) child.stdin.write(o.stdin);
    if (!o.keepStdinOpen) child.stdin.end();
    let closed = false;
    const kill = (): void => {
      if (closed) return;
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(kill, o.killAfterMs ?? 60_000);
    o.killWhen?.then(kill, kill);
    child.on('close', (code) => {
      closed = true;
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ ms: performance.now() - t0, code, killed, stdout, stderr });
    });
  });
}

export function note(id: string, title: string, body: string, extra = ''): string {
  return `---\nid: ${id}\ntitle: ${JSON.stringify(title)}\nconfidence: medium\ntags: [test]\nkey_insight: ${JSON.stringify(title)}\n${extra}---\n## Learning\n\n${body}\n\n**How to apply:** ${title}\n`;
}

export interface HostileKb {
  base: string;
  kb: string;
  state: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A temp KB with two postgres notes and its own state dir; hooks read it through
 * GLOBAL_LEARNINGS_PATH. `RECALL_SQLITE_DRIVER` is passed on, so a run on another driver times and
 * tests its processes on that driver too.
 */
export function hostileKb(): HostileKb {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hostile-'));
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
  if (process.env['RECALL_SQLITE_DRIVER']) env['RECALL_SQLITE_DRIVER'] = process.env['RECALL_SQLITE_DRIVER'];
  return { base, kb, state, env };
}
