/**
 * The thin client's side of scripts/hook.sh, the shell the commands of the burst hooks start (the
 * hook's keeper; the hook table's keeper column): it starts node, answers "nothing to add" itself
 * when node cannot answer by the deadline, and alone writes to the harness. It tells node its pid and when it answers itself; node counts its
 * deadline from the keeper's spawn, gives up before the keeper's time, and signals it once the
 * envelope is written so that the harness gets it at once.
 */
import type { HookCallStart } from './hook-call.js';
import { processStartMs } from '../io/process-start.js';

export interface Keeper {
  /** The keeper's pid: this process's parent. */
  pid: number;
  /** When, in ms from its spawn, the keeper answers itself; null when it did not say. */
  answerByMs: number | null;
}

/**
 * The keeper that started this process (RECALL_HOOK_LAUNCHER, RECALL_HOOK_ANSWER_BY), taken out of
 * the environment so that nothing this process starts (a server, git) inherits it; null when the
 * hook was not started by scripts/hook.sh (no such setting, or its pid is not this process's parent).
 */
export function takeKeeper(env: NodeJS.ProcessEnv = process.env): Keeper | null {
  const pid = Number(env['RECALL_HOOK_LAUNCHER']);
  const answerBy = Number(env['RECALL_HOOK_ANSWER_BY']);
  delete env['RECALL_HOOK_LAUNCHER'];
  delete env['RECALL_HOOK_ANSWER_BY'];
  if (!Number.isInteger(pid) || pid <= 1 || pid !== process.ppid) return null;
  return { pid, answerByMs: Number.isFinite(answerBy) && answerBy > 0 ? answerBy : null };
}

/**
 * When the hook was spawned (epoch ms): the keeper's start when there is one, else this process's,
 * as the kernel records it. On a loaded machine node's own clock starts seconds after that.
 */
export function spawnedMs(keeper: Keeper | null): number {
  return processStartMs(keeper ? keeper.pid : 'self');
}

/** The call with its answer due before the keeper answers itself. */
export function keptBy(keeper: Keeper | null, start: HookCallStart): HookCallStart {
  if (!keeper?.answerByMs) return start;
  return { ...start, deadlineMs: Math.min(start.deadlineMs, start.startedMs + keeper.answerByMs) };
}

/** Tell the keeper the envelope is written (SIGUSR2, which it traps); never throws. */
export function tellKeeper(keeper: Keeper | null): void {
  if (!keeper || keeper.pid !== process.ppid) return;
  try {
    process.kill(keeper.pid, 'SIGUSR2');
  } catch {
    /* it is gone: it answered already */
  }
}
