/**
 * How the thin client reads a hook's stdin and sizes its deadline: the in-process hook's own rules
 * (core/hook-input.ts), used as they are, so both paths read the same input within the same time.
 */
import { DEADLINE_MAX_SEC, DEADLINE_MIN_SEC, HOOK_TIMEOUTS, MAX_STDIN_BYTES, readStdin, stdinWaitMs } from '../core/hook-input.js';
import type { Env } from './protocol.js';

/**
 * The hook's deadline (epoch ms) from its environment setting; a malformed value means the default,
 * as in the hook itself. (A deadline set in recall.toml is honoured by the hook run, not here.)
 */
export function hookDeadline(name: string, env: Env, startedMs: number): number {
  const { env: key, defaultSec } = HOOK_TIMEOUTS[name] ?? HOOK_TIMEOUTS['session-start']!;
  const raw = (env[key] ?? '').trim();
  const n = Number(raw);
  const sec = raw !== '' && Number.isFinite(n) && n >= DEADLINE_MIN_SEC && n <= DEADLINE_MAX_SEC ? n : defaultSec;
  return startedMs + sec * 1000;
}

/** The hook's stdin ('' for a terminal, a closed or an oversized stdin). */
export function readHookStdin(stream: NodeJS.ReadStream, deadlineMs: number): Promise<string> {
  return readStdin(stream, MAX_STDIN_BYTES, stdinWaitMs(deadlineMs));
}
