/**
 * The one way a hook call is answered, by the recall server and by the in-process path alike: the
 * hook of the call's name run under the call's deadline, to its one envelope. Never rejects.
 */
import path from 'node:path';
import { emptyEnvelope, harnessOf } from '../sinks/hook-envelope.js';
import type { HookCall } from '../io/hook-input.js';
import { hookRow, isHookName } from './hook-table.js';
import { HOOKS } from './registry.js';
import { parseHookInput, pick, runHook, type HookRunIo } from './runtime.js';

/**
 * The envelope of `call`: the hook's answer, else (an unknown hook, a throw past runHook's own
 * guard) "nothing to add" in the shape of the harness running it. `io` carries the effects of the
 * place it runs in (the server's index opener) and a degradation met before it (for the hook's log).
 */
export async function answerHook(call: HookCall, io: HookRunIo = {}): Promise<string> {
  try {
    if (!isHookName(call.name)) return '{}\n';
    return (await runHook(HOOKS[call.name], call, io)).envelope;
  } catch {
    return fallbackEnvelope(call);
  }
}

/**
 * The empty answer of the call's hook in the shape of the harness running it (known from the
 * environment and the payload): what the harness gets when the hook could not run.
 */
export function fallbackEnvelope(call: Pick<HookCall, 'name' | 'env' | 'stdinText'>): string {
  let input: Record<string, unknown> = {};
  try {
    input = parseHookInput(call.stdinText);
  } catch {
    /* the environment alone tells the harness */
  }
  try {
    return emptyEnvelope(harnessOf(call.env, input), isHookName(call.name) ? hookRow(call.name).event : undefined);
  } catch {
    // An empty object is a valid "nothing to add" answer in every harness.
    return '{}\n';
  }
}

/**
 * The project folder a hook call works in and the files of its payload it may read (the
 * transcript), as the hooks find them: $CLAUDE_PROJECT_DIR, else the payload's cwd, else the
 * call's. Read from the call alone, without touching the file system (the recall server checks
 * these paths answer before the call runs: see server/project-probe.ts).
 */
export function callPaths(call: Pick<HookCall, 'env' | 'cwd' | 'stdinText'>): { project: string; transcript: string | null } {
  let input: Record<string, unknown> = {};
  try {
    input = parseHookInput(call.stdinText);
  } catch {
    /* no payload: the call's own folder */
  }
  const project = path.resolve(call.cwd, call.env['CLAUDE_PROJECT_DIR'] || pick(input, ['cwd']) || '.');
  const transcript = pick(input, ['transcript_path', 'transcriptPath']);
  return { project, transcript: transcript ? path.resolve(call.cwd, transcript) : null };
}
