/**
 * What a hook leaves behind when something went wrong (it never tells the agent): the last error in
 * `<state>/last-event.json` and one line per event in `<state>/logs/<hook>.log`, secrets scrubbed.
 * Writing them never throws.
 */
import path from 'node:path';
import fs from 'node:fs';
import { writeFileAtomic } from './atomic-write.js';
import { scrub } from './scrub.js';

/** Longest detail kept in a breadcrumb. */
const MAX_DETAIL = 500;

export function logHookLine(stateDir: string, hook: string, message: string): void {
  try {
    fs.mkdirSync(path.join(stateDir, 'logs'), { recursive: true });
    fs.appendFileSync(path.join(stateDir, 'logs', `${hook}.log`), `[${new Date().toISOString()}] ${scrub(message).replace(/\s+/g, ' ').slice(0, 2000)}\n`);
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
