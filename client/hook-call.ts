/**
 * The one place a hook call is put together: where its process starts. The settings (environment
 * over recall.toml, path settings made absolute against the caller's folder) are read and the
 * deadline worked out once, here; the recall server and the in-process path take the call as it is.
 */
import { absolutePathSettings } from '../core/path-settings.js';
import { MAX_STDIN_BYTES, hookDeadline, readStdin, stdinWaitMs, type HookCall } from '../io/hook-input.js';
import { withConfigFile } from '../pipeline/config/index.js';
import { hookRow, type HookName } from '../hooks/hook-table.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A hook call before its stdin is read: everything but the input, so the read is bounded by the deadline. */
export type HookCallStart = Omit<HookCall, 'stdinText'>;

/**
 * The settings and deadline of hook `name` for a process started at `startedMs` in `cwd`. A broken
 * recall.toml or a malformed deadline setting is a warning (the default is used), never a failure.
 */
export function startHookCall(name: HookName, proc: { env: Env; cwd: string; startedMs: number }): HookCallStart {
  // Relative path settings mean the caller's folder: made absolute before recall.toml is looked for
  // (RECALL_CONFIG may be relative), and again for the paths recall.toml itself holds.
  const file = withConfigFile(absolutePathSettings(proc.env, proc.cwd));
  const env = absolutePathSettings(file.env, proc.cwd);
  const row = hookRow(name);
  const { deadlineMs, problem } = hookDeadline(row.timeoutEnv, env[row.timeoutEnv], row.defaultTimeoutSec, proc.startedMs);
  return {
    name,
    env,
    warnings: problem ? [...file.warnings, problem] : file.warnings,
    cwd: proc.cwd,
    startedMs: proc.startedMs,
    deadlineMs,
  };
}

/** The call with its stdin: read within the call's deadline ('' for a terminal, a closed or an oversized stdin). */
export async function withStdin(start: HookCallStart, stdin: NodeJS.ReadStream): Promise<HookCall> {
  const stdinText = await readStdin(stdin, MAX_STDIN_BYTES, stdinWaitMs(start.deadlineMs));
  return { ...start, stdinText };
}

/** A whole call from a stdin text already at hand (tests, benchmarks). */
export function hookCall(name: HookName, stdinText: string, proc: { env: Env; cwd: string; startedMs: number }): HookCall {
  return { ...startHookCall(name, proc), stdinText };
}
