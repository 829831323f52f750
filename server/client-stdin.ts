/**
 * How the thin client reads a hook's stdin and sizes its deadline: the in-process hook's own rules
 * (io/hook-input.ts) and its own deadline setting and default (the hook table), used as they are,
 * so both paths read the same input within the same time.
 */
import { MAX_STDIN_BYTES, deadlineSec, readStdin, stdinWaitMs } from '../io/hook-input.js';
import { hookRow, type HookName } from '../hooks/hook-table.js';
import type { Env } from '../sources/recall-server/index.js';

/**
 * The hook's deadline (epoch ms) from its environment setting; a malformed value means the default,
 * as in the hook itself. (A deadline set in recall.toml is honoured by the hook run, not here.)
 */
export function hookDeadline(name: HookName, env: Env, startedMs: number): number {
  const row = hookRow(name);
  return startedMs + deadlineSec(env[row.timeoutEnv], row.defaultTimeoutSec) * 1000;
}

/** The hook's stdin ('' for a terminal, a closed or an oversized stdin). */
export function readHookStdin(stream: NodeJS.ReadStream, deadlineMs: number): Promise<string> {
  return readStdin(stream, MAX_STDIN_BYTES, stdinWaitMs(deadlineMs));
}
