/**
 * Shared process edge of the hook entry scripts: read stdin, run the hook, print its one envelope,
 * exit 0 — also when anything below failed (runHook never rejects; this guards the guard).
 */
import { HOOKS } from '../pipeline/hooks.js';
import { hookDeadlineMs, readStdin, runHook, stdinWaitMs } from '../pipeline/hook-runtime.js';

const EMPTY_ENVELOPE = '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}\n';

/**
 * The envelope of a hook whose stdin was already read (the recall server's thin client reads it
 * before it knows whether the server or this process answers). `notice` says why the server did not
 * answer; it goes to the hook's log. Never rejects.
 */
export async function hookAnswer(name: string, stdinText: string, startedMs: number, notice?: string): Promise<string> {
  try {
    const out = await runHook(HOOKS[name]!, { stdinText, env: process.env, cwd: process.cwd(), startedMs, ...(notice ? { notice } : {}) });
    return out.envelope;
  } catch {
    return EMPTY_ENVELOPE;
  }
}

export async function hookMain(name: string): Promise<void> {
  // The deadline counts from process start: node's own start-up and the stdin read are part of it.
  const startedMs = Math.round(performance.timeOrigin);
  // Whatever this process creates (index, logs, cache) is readable by the user only.
  process.umask(0o077);
  let envelope = EMPTY_ENVELOPE;
  try {
    const spec = HOOKS[name]!;
    const stdinText = await readStdin(process.stdin, undefined, stdinWaitMs(hookDeadlineMs(spec, process.env, startedMs)));
    envelope = await hookAnswer(name, stdinText, startedMs);
  } catch {
    /* envelope stays empty-context */
  }
  // Exit once the answer is flushed: a model-daemon socket or timer must not keep the hook alive.
  process.stdout.write(envelope, () => process.exit(0));
}
