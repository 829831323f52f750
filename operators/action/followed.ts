/**
 * Notes a tool call already follows: it runs a command a note recommends, as the note writes it, stays
 * within what a note says is fine, or writes a setting a note recommends, to its value. Such a note
 * needs no reminder, and neither does the older note it replaces (hooks/action-recall.ts). Pure.
 */
import type { NoteTriggers } from './triggers.js';
import type { Evidence } from './evidence.js';
import type { ActionFeatures } from './features.js';
import { settingTokens } from './terms.js';
import { exempted } from './exemptions.js';
import { runFollows } from './commit-format.js';
import { addedLines, type ToolAction } from './tool-call.js';

/** Evidence that the call writes or runs something a note names (not only its topic's words). */
const NAMED_EVIDENCE = /^(?:when|command|applies|token|retired|import|variable|type|changes):/;

/** A note's evidence as Evidence holds it. */
type NoteEvidence = Evidence['byNote'] extends Map<number, infer E> ? E : never;

/**
 * Takes the notes the call follows or is exempted from out of `ev`, and returns those it follows
 * with their evidence (a replaced note's passes to what replaced it). An `applies_when` hit stays: its author asked for the note
 * whenever the call matches.
 */
export function dropFollowed(
  notes: readonly NoteTriggers[],
  action: ToolAction,
  f: ActionFeatures,
  ev: Evidence,
): [number, NoteEvidence][] {
  const out: [number, NoteEvidence][] = [];
  // A note the call is only within ("read-only kubectl is fine") is dropped, not returned: the call
  // follows no advice of it, so it has nothing to pass to a note that replaces it.
  const drop = (i: number, follows = true): void => {
    if (follows) out.push([i, ev.byNote.get(i)!]);
    ev.byNote.delete(i);
  };
  const asked = (why: readonly string[]): boolean => why.some((w) => w.startsWith('when:'));
  // A run that does what a note recommends needs no reminder of it.
  const runs = [...f.commands, ...f.statements];
  if (action.kind === 'run') for (const [i, e] of ev.byNote) if (!asked(e.why) && runFollows(action.raw, runs, notes[i]!)) drop(i);
  // Nor does a call within what a note says is fine ("read-only kubectl (get, describe) is fine", "outside `main.go`").
  for (const [i, e] of ev.byNote) if (!asked(e.why) && exempted(notes[i]!, action.kind, f.commands, f.paths)) drop(i, false);
  // Nor does an edit that writes a setting a note recommends, to its value (`timeZone: "Etc/UTC"` for
  // "set timeZone: Etc/UTC"), and nothing the note is about or warns of: only its topic's words are
  // left, and it is being followed. The key alone, set to another value, is not following it.
  if (action.kind === 'edit') {
    // What it writes: the lines it adds, not those it drops (dropping the setting undoes the note).
    const settings = settingTokens(addedLines(action.text, action.before));
    const keyOf = (c: string): string => c.slice(0, c.indexOf('='));
    for (const [i, e] of ev.byNote) {
      const followed = settings.filter((c) => notes[i]!.followSettings.has(c));
      if (followed.length === 0) continue;
      // The same key written to another value anywhere in what it adds (a second job, a comment
      // that keeps the old value) is not following the note, whatever else the edit writes.
      const keys = new Set(followed.map(keyOf));
      if (settings.some((c) => keys.has(keyOf(c)) && !notes[i]!.followSettings.has(c))) continue;
      // The followed setting's own key and value, matched as tokens, name nothing else the note is about.
      const own = new Set(followed.flatMap((c) => c.split('=')));
      const named = e.why.some((w) => NAMED_EVIDENCE.test(w) && !own.has(w.slice(w.indexOf(':') + 1)));
      if (!named) drop(i);
    }
  }
  return out;
}
