/**
 * Shared process edge of the hook entry scripts: read stdin, run the hook, print its one envelope,
 * exit 0 — also when anything below failed (runHook never rejects; this guards the guard).
 */
import { HOOKS } from '../pipeline/hooks.js';
import { readStdin, runHook } from '../pipeline/hook-runtime.js';

export async function hookMain(name: string): Promise<void> {
  let envelope = '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}\n';
  try {
    const spec = HOOKS[name]!;
    const out = await runHook(spec, { stdinText: await readStdin(), env: process.env, cwd: process.cwd() });
    envelope = out.envelope;
  } catch {
    /* envelope stays empty-context */
  }
  // Exit once the answer is flushed: a model-daemon socket or timer must not keep the hook alive.
  process.stdout.write(envelope, () => process.exit(0));
}
