/**
 * Successions among the notes a tool call reaches: a retired note gives way to what replaced it (a
 * note's `supersedes`, the entity graph's relationship, or a Claude Code memory a newer one says is
 * gone), and a note the call already follows takes the notes it replaced with it. Pure but for the
 * successions lookup the note set provides.
 */
import type { Note } from '../core/note/index.js';
import { errorMessage } from '../core/errors.js';
import type { ActionMatch } from '../operators/action/index.js';
import type { NoteSet } from '../pipeline/run.js';
import type { KbTriggers } from './action-triggers.js';

/** What marks a note the call already follows among the matches (and so every note that gave way to it). */
const FOLLOWED = 'followed';
/** Evidence that a note names what the call runs: its `applies_when`, or a command it names. */
const NAMES_THE_CALL = /^(?:when|applies|command):/;

/**
 * A note that another note the call reaches supersedes is retired advice: its replacement takes its
 * evidence (when that is more than its own) and it is not given. The prompt hook's recall does the
 * same (operators/lift-successors.ts); only successions among the notes the call reaches count.
 */
export function giveWayToSuccessors(
  matches: readonly ActionMatch[],
  notes: ReadonlyMap<string, Note>,
  set: Pick<NoteSet, 'successors'>,
  warn: (line: string) => void,
): ActionMatch[] {
  if (!set.successors || matches.length < 2) return [...matches];
  const byPath = new Map<string, ActionMatch>();
  for (const m of matches) {
    const note = notes.get(m.id);
    if (note) byPath.set(note.path, m);
  }
  let found: ReadonlyMap<string, ReadonlySet<string>>;
  try {
    found = set.successors([...byPath.keys()]);
  } catch (err) {
    warn(`successions unavailable, stale notes are matched as they are: ${errorMessage(err)}`);
    return [...matches];
  }
  const out = new Map(matches.map((m) => [m.id, m]));
  // Along a chain (A superseded by B, B by C) what a note gave way to passes on to the newest.
  const movedTo = new Map<string, string>();
  const newest = (id: string): string => {
    for (let k = 0; k <= matches.length && !out.has(id) && movedTo.has(id); k += 1) id = movedTo.get(id)!;
    return id;
  };
  for (const [older, newers] of found) {
    for (const newer of newers) {
      // The older note as it stands now (it may have taken an older one's evidence already).
      const stale = out.get(byPath.get(older)?.id ?? '');
      const next = byPath.get(newer);
      const cur = next && out.get(newest(next.id));
      if (!stale || !cur || cur.id === stale.id) continue;
      movedTo.set(stale.id, cur.id);
      out.set(cur.id, {
        ...cur,
        score: Math.max(cur.score, stale.score),
        strong: cur.strong || stale.strong,
        pieces: Math.max(cur.pieces, stale.pieces),
        why: [...cur.why, `succeeds:${stale.id}`],
      });
      out.delete(stale.id);
    }
  }
  return [...out.values()].sort((a, b) => b.score - a.score);
}

/**
 * A memory a newer one says is gone (KbTriggers.replacedBy) is not given: the newer one takes its
 * evidence, when that is more than its own, whether or not the call reaches it ("restart the
 * workers on ost-web-2" in the words of the replaced per-server workers memory gets Horizon's).
 */
export function giveWayToReplacements(matches: readonly ActionMatch[], replacedBy: ReadonlyMap<string, string>): ActionMatch[] {
  if (replacedBy.size === 0) return [...matches];
  const out = new Map(matches.map((m) => [m.id, m]));
  for (const stale of matches) {
    const newer = newestOf(stale.id, replacedBy);
    if (newer === stale.id) continue;
    const cur = out.get(newer);
    out.delete(stale.id);
    out.set(newer, {
      id: newer,
      score: Math.max(cur?.score ?? 0, stale.score),
      strong: (cur?.strong ?? false) || stale.strong,
      pieces: Math.max(cur?.pieces ?? 0, stale.pieces),
      why: [...(cur?.why ?? []), `succeeds:${stale.id}`],
    });
  }
  return [...out.values()].sort((a, b) => b.score - a.score);
}

/** The last memory of a chain of replacements from `id` ("workers" → Horizon → jobs gives jobs); a loop ends where it closes. */
function newestOf(id: string, replacedBy: ReadonlyMap<string, string>): string {
  const seen = new Set([id]);
  let at = id;
  for (let next = replacedBy.get(at); next !== undefined && !seen.has(next); next = replacedBy.get(at)) {
    seen.add(next);
    at = next;
  }
  return at;
}

/**
 * The matches once retired notes gave way to what replaced them. A note the call already follows
 * stays in the successions, marked, so that what replaced it takes its evidence (`make test` where an
 * older memory says so and a newer one says the tests moved to pytest gets the newer one), while a
 * note replaced by one the call follows gives way to it and neither is given: the call does what the
 * current advice says. Unless the older note names what the call runs ("never `make deploy`"): that
 * is a warning the call walks into, whatever the newer note seems to recommend.
 */
export function afterSuccessions(
  reached: readonly ActionMatch[],
  followed: readonly ActionMatch[],
  kb: Pick<KbTriggers, 'notes' | 'replacedBy'>,
  set: Pick<NoteSet, 'successors'>,
  warn: (line: string) => void,
): ActionMatch[] {
  const standing = followed.map((m) => ({ ...m, why: [...m.why, FOLLOWED] }));
  const ms = giveWayToReplacements(giveWayToSuccessors([...reached, ...standing], kb.notes, set, warn), kb.replacedBy);
  const warns = new Set(reached.filter((m) => m.why.some((w) => NAMES_THE_CALL.test(w))).map((m) => `succeeds:${m.id}`));
  return ms.filter((x) => !x.why.includes(FOLLOWED) || x.why.some((w) => warns.has(w)));
}
