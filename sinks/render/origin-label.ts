/**
 * How a note imported from a team store names where it came from, in every output format: the
 * author as the store recorded it (a database role), the machine, and whether it is quarantined.
 * Names are data from another machine: control characters and newlines are dropped and the length
 * capped, so a label cannot break the line it sits on.
 */
import type { Note } from '../../core/note/index.js';

/** Longest author or machine name shown. */
const MAX_NAME = 64;

export function cleanName(s: string): string {
  return (
    s
      .replace(/[\p{C}\s]+/gu, ' ')
      .trim()
      .slice(0, MAX_NAME) || '?'
  );
}

/** `team: alice@laptop[, quarantined][, unverified]`, or null for the KB's own notes. */
export function originLabel(note: Pick<Note, 'origin' | 'quarantine'>): string | null {
  const o = note.origin;
  if (!o) return null;
  const who = o.machine ? `${cleanName(o.author)}@${cleanName(o.machine)}` : cleanName(o.author);
  return `team: ${who}${note.quarantine ? ', quarantined' : ''}${o.verified ? '' : ', unverified'}`;
}
