/** The notes block of `recall status`: counts, the files skipped and the notes indexed with a warning. */
import { stripControls } from '../sinks/safe-text.js';

export interface StatusNotes {
  live: number;
  archived: number;
  forgotten: number;
  /** Files that could not be used, and why. */
  skipped: { path: string; reason: string }[];
  /** Notes indexed all the same, with what is wrong (another file holds their id). */
  warnings: { path: string; reason: string }[];
}

/** Most files of each list shown (`recall index` lists them all). */
const SHOWN = 20;

export function noteLines(n: StatusNotes): string[] {
  const warned = n.warnings.length ? `; ${n.warnings.length} with a warning` : '';
  const out = [`notes     ${n.live} live, ${n.archived} archived, ${n.forgotten} forgotten; ${n.skipped.length} skipped${warned}`];
  // File names are the user's (or an attacker's): no escape sequence reaches the terminal.
  for (const s of n.skipped.slice(0, SHOWN)) out.push(`          skipped ${stripControls(s.path)}: ${stripControls(s.reason)}`);
  if (n.skipped.length > SHOWN) out.push(`          … ${n.skipped.length - SHOWN} more (recall index --verbose lists all)`);
  for (const w of n.warnings.slice(0, SHOWN)) out.push(`          warning ${stripControls(w.path)}: ${stripControls(w.reason)}`);
  if (n.warnings.length > SHOWN) out.push(`          … ${n.warnings.length - SHOWN} more warnings (recall index lists all)`);
  return out;
}
