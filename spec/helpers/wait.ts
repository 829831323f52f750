/**
 * Waiting for an event in specs: a condition looked at again and again until it holds, within a
 * generous overall cap. Specs wait for what they need (a process gone, a file written, a lock
 * taken), never for a fixed time, which a loaded machine may not honour.
 */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Look at `cond` every `everyMs` until it holds (true) or `maxMs` passed (false). */
export async function waitFor(cond: () => boolean | Promise<boolean>, maxMs = 120_000, everyMs = 100): Promise<boolean> {
  const until = Date.now() + maxMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > until) return false;
    await sleep(everyMs);
  }
}
