/**
 * What a hook leaves behind when something went wrong (it never tells the agent): the last error in
 * `<state>/last-event.json` and one line per event in `<state>/logs/<hook>.log`, secrets scrubbed.
 * Writing them never throws.
 */
import path from 'node:path';
import { appendText, writeFileAtomic } from '../../io/atomic-write.js';
import { scrub } from '../scrub/index.js';

/** Longest detail kept in a breadcrumb. */
const MAX_DETAIL = 500;
/** A hook log is rotated to `<hook>.log.1` at this size. */
const HOOK_LOG_MAX_BYTES = 1048576;

export function logHookLine(stateDir: string, hook: string, message: string): void {
  try {
    appendText(
      path.join(stateDir, 'logs', `${hook}.log`),
      `[${new Date().toISOString()}] ${scrub(message).replace(/\s+/g, ' ').slice(0, 2000)}\n`,
      {
        maxBytes: HOOK_LOG_MAX_BYTES,
      },
    );
  } catch {
    /* best effort */
  }
}

export function leaveBreadcrumb(stateDir: string, hook: string, kind: string, detail: string): void {
  try {
    writeFileAtomic(
      path.join(stateDir, 'last-event.json'),
      JSON.stringify({ event: 'error', hook, kind, detail: scrub(detail).slice(0, MAX_DETAIL), ts: new Date().toISOString() }),
    );
  } catch {
    /* best effort */
  }
  logHookLine(stateDir, hook, `${kind}: ${detail}`);
}
