/**
 * Shared process edge of the hook entry scripts: read stdin, run the hook, print its one envelope,
 * exit 0, also when anything below failed (runHook never rejects; this guards the guard).
 */
import { harnessOf, toHookEnvelope } from '../sinks/hook-envelope.js';
import { hookRow, type HookName } from './hook-table.js';
import { HOOKS } from './registry.js';
import { hookDeadlineMs, hookSettings, parseHookInput, readStdin, runHook, stdinWaitMs, type Env, type HookSettings } from './runtime.js';

export interface HookProcess {
  stdin: NodeJS.ReadStream;
  env: Env;
  cwd: string;
  /** When the process started (epoch ms): the deadline counts from there. */
  startedMs: number;
}

/**
 * The empty answer of hook `name` in the shape of the harness running it (known from the env and,
 * when it was read, the stdin payload): what the harness gets when the hook itself failed.
 */
export function fallbackEnvelope(name: HookName, env: Env, stdinText = ''): string {
  return toHookEnvelope(harnessOf(env, parseHookInput(stdinText)), hookRow(name).event, '');
}

/**
 * The envelope of hook `name` for a stdin already read; `notice` (why the server did not answer)
 * goes to its log; `settings`, the env and config file when already read. Never rejects.
 */
export async function hookAnswer(
  name: HookName,
  stdinText: string,
  proc: Omit<HookProcess, 'stdin'>,
  notice?: string,
  settings?: HookSettings,
): Promise<string> {
  try {
    const io = {
      stdinText,
      env: proc.env,
      cwd: proc.cwd,
      startedMs: proc.startedMs,
      ...(notice ? { notice } : {}),
      ...(settings ? { settings } : {}),
    };
    return (await runHook(HOOKS[name], io)).envelope;
  } catch {
    return safeFallback(name, proc.env, stdinText);
  }
}

function safeFallback(name: HookName, env: Env, stdinText: string): string {
  try {
    return fallbackEnvelope(name, env, stdinText);
  } catch {
    // An empty object is a valid "nothing to add" answer in every harness.
    return '{}\n';
  }
}

/** The one envelope hook `name` answers with; never rejects. */
export async function hookEnvelope(name: HookName, proc: HookProcess): Promise<string> {
  let stdinText = '';
  try {
    // The config file is read once: for the stdin wait (a deadline set there bounds it) and the run.
    const settings = hookSettings(proc.env);
    stdinText = await readStdin(proc.stdin, undefined, stdinWaitMs(hookDeadlineMs(HOOKS[name], proc.env, proc.startedMs, settings)));
    return await hookAnswer(name, stdinText, proc, undefined, settings);
  } catch {
    return safeFallback(name, proc.env, stdinText);
  }
}

export async function hookMain(name: HookName): Promise<void> {
  // The deadline counts from process start: node's own start-up and the stdin read are part of it.
  const startedMs = Math.round(performance.timeOrigin);
  // Whatever this process creates (index, logs, cache) is readable by the user only.
  process.umask(0o077);
  const envelope = await hookEnvelope(name, { stdin: process.stdin, env: process.env, cwd: process.cwd(), startedMs });
  // Exit once the answer is flushed: a model-daemon socket or timer must not keep the hook alive.
  process.stdout.write(envelope, () => process.exit(0));
}
