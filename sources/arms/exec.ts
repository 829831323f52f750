/**
 * External commands as cancellable sources (execa underneath).
 *
 * `command$` starts the process on subscribe, in its own process group, and emits one result
 * (exit code, stdout, stderr) when it ends. Unsubscribing before that — a timeout upstream, a
 * switch, the caller giving up — kills the whole group with SIGKILL, so a child's own children do
 * not survive it. Groups still alive when this process exits are killed too. A command that cannot
 * be started (not found, not executable) errors.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Observable } from 'rxjs';

export interface CommandResult {
  exitCode: number | undefined;
  signal: string | undefined;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Text written to stdin (stdin is closed either way). */
  input?: string;
  /** Output cap per stream in bytes (a runaway engine cannot exhaust memory). */
  maxBuffer?: number;
}

/** Default cap on captured output per stream. */
const MAX_BUFFER = 32 * 1024 * 1024;

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  liveGroups.delete(pid);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of liveGroups) killGroup(pid);
  });
}

export function command$(file: string, args: readonly string[], opts: CommandOptions = {}): Observable<CommandResult> {
  return new Observable<CommandResult>((subscriber) => {
    let pid: number | undefined;
    let finished = false;
    let cancelled = false;
    import('execa')
      .then(({ execa }) => {
        if (cancelled) return undefined;
        const child = execa(file, [...args], {
          env: opts.env as Record<string, string>,
          extendEnv: opts.env === undefined,
          ...(opts.cwd ? { cwd: opts.cwd } : {}),
          ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
          detached: true,
          cleanup: false,
          reject: false,
          stripFinalNewline: false,
          maxBuffer: opts.maxBuffer ?? MAX_BUFFER,
        });
        pid = child.pid;
        if (pid !== undefined) {
          liveGroups.add(pid);
          installExitHook();
        }
        return child.then((r) => {
          finished = true;
          if (pid !== undefined) liveGroups.delete(pid);
          if (cancelled) return;
          // A spawn failure (ENOENT, EACCES) has no exit code and no signal.
          if (r.failed && r.exitCode === undefined && r.signal === undefined) {
            subscriber.error(new Error(`${path.basename(file)}: ${r.shortMessage ?? r.message}`));
            return;
          }
          subscriber.next({ exitCode: r.exitCode, signal: r.signal, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') });
          subscriber.complete();
        });
      })
      .catch((err: unknown) => {
        if (!cancelled) subscriber.error(err);
      });
    return () => {
      cancelled = true;
      if (!finished && pid !== undefined) killGroup(pid);
    };
  });
}

/** First executable named `name` on PATH (like `which`), or null. */
export function findOnPath(name: string, envPath: string | undefined = process.env['PATH']): string | null {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      const st = fs.statSync(candidate);
      if (st.isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      }
    } catch {
      /* not here */
    }
  }
  return null;
}

/** Last non-empty stderr line, trimmed to a readable length (for degradation messages). */
export function stderrTail(stderr: string, max = 300): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const last = lines[lines.length - 1] ?? '';
  return last.length > max ? `${last.slice(0, max)}…` : last;
}
