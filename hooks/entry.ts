/**
 * Shared process edge of the hook entry scripts: read stdin, run the hook, print its one envelope,
 * exit 0 — also when anything below failed (runHook never rejects; this guards the guard).
 */
import { HOOKS } from './registry.js';
import { hookDeadlineMs, readStdin, runHook, stdinWaitMs } from './runtime.js';

export async function hookMain(name: string): Promise<void> {
  // The deadline counts from process start: node's own start-up and the stdin read are part of it.
  const startedMs = Math.round(performance.timeOrigin);
  // Whatever this process creates (index, logs, cache) is readable by the user only.
  process.umask(0o077);
  let envelope = '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}\n';
  try {
    const spec = HOOKS[name]!;
    const stdinText = await readStdin(process.stdin, undefined, stdinWaitMs(hookDeadlineMs(spec, process.env, startedMs)));
    const out = await runHook(spec, { stdinText, env: process.env, cwd: process.cwd(), startedMs });
    envelope = out.envelope;
  } catch {
    /* envelope stays empty-context */
  }
  // Exit once the answer is flushed: a model-daemon socket or timer must not keep the hook alive.
  process.stdout.write(envelope, () => process.exit(0));
}
