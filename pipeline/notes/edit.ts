/**
 * Edits of one line of a live note, for `recall view`'s note actions: the how-to-apply line, the
 * instruction recall shows under a note's key insight. Made like the other note writes
 * (pipeline/notes/write.ts): the note resolved through a refreshed index, then its file re-read
 * and rewritten while holding the KB's writer lock; a harness's memory folder is never changed.
 */
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { parseNote, type Note } from '../../core/note/index.js';
import { cleanNote } from '../learnings/index.js';
import { NoteEditError, rewriteNote, withNotesLock } from '../../sinks/note-writer.js';
import { resolveNote, withKb, type KbOptions, type NotesIo } from './kb.js';
import { currentText, refuseHarnessMemory, writing } from './write.js';

/** The longest how-to-apply line: recall shows the first 280 characters of it (core/note/fields.ts). */
export const HOW_TO_APPLY_MAX_CHARS = 280;

/** The line's marker and its first line of text (what recall shows); the rest of the paragraph is the person's body text. */
const HOW_TO_APPLY_LINE = /\*\*How to apply:\*\*[ \t]*(?:\n[ \t]*)?[^\n]*/;

export interface HowToApplyResult {
  id: string;
  path: string;
  howToApply: string;
}

/** The note's text with its how-to-apply line set to `line` (added at the end when it has none). */
export function withHowToApply(text: string, line: string): string {
  const end = text.startsWith('---') ? text.indexOf('\n---', 3) : -1;
  const split = end < 0 ? 0 : text.indexOf('\n', end + 4) < 0 ? text.length : text.indexOf('\n', end + 4) + 1;
  const head = text.slice(0, split);
  const body = text.slice(split);
  const set = `**How to apply:** ${line}`;
  if (HOW_TO_APPLY_LINE.test(body)) return head + body.replace(HOW_TO_APPLY_LINE, () => set);
  return `${head}${body.replace(/\s*$/, '')}\n\n${set}\n`;
}

/**
 * Set a live note's how-to-apply line. The text is cleaned as every note write is (no secrets, no
 * invisible characters) and kept to one line; empty or over HOW_TO_APPLY_MAX_CHARS is a UsageError.
 */
export function setHowToApply(id: string, given: string, opts: KbOptions, io: NotesIo): HowToApplyResult {
  const line = (cleanNote({ title: '-', keyInsight: '-', howToApply: given }).howToApply ?? '').replace(/\s+/g, ' ').trim();
  if (!line) throw new UsageError('the how-to-apply line is empty: write what to do, in one line');
  if (line.length > HOW_TO_APPLY_MAX_CHARS)
    throw new UsageError(`the how-to-apply line has ${line.length} characters; recall shows ${HOW_TO_APPLY_MAX_CHARS} at most`);
  return editLiveNote('edit', id, opts, io, ({ abs, note, text }) => {
    const next = withHowToApply(text, line);
    // The note must read back with the new line, by the same parser recall uses, before it lands.
    const back = parseNote(next, note.path, note.location).howToApply;
    if (back !== line) throw new NoteEditError(`${abs}: the edited note would read back with how-to-apply ${JSON.stringify(back)}`);
    rewriteNote(abs, next);
    return { id: note.key, path: abs, howToApply: line };
  });
}

/** A live note being changed in place: its file, its index entry, and its text and parse as the file is now. */
export interface LiveEdit {
  abs: string;
  note: Note;
  text: string;
  now: Note;
}

/**
 * Change one live note of the KB in place (`what` names the command in errors): never a note of a
 * harness's memory folder (the KB's root or the file itself, links followed), and under the writer
 * lock, given the file's text as it is now rather than what the index last read.
 */
export function editLiveNote<T>(what: string, id: string, opts: KbOptions, io: NotesIo, edit: (e: LiveEdit) => T): T {
  return writing(what, () =>
    withKb(
      opts,
      io,
      ({ index, scope, config }) => {
        refuseHarnessMemory(scope.root, io, config.home);
        const note = resolveNote(index, id, scope.root, { live: true });
        const abs = path.join(scope.root, note.path);
        // The file itself too, links followed: one note of a KB may be a link into a memory folder.
        refuseHarnessMemory(abs, io, config.home);
        return withNotesLock(scope.root, () => edit({ abs, note, ...currentText(abs, note, id) }));
      },
      { write: true },
    ),
  );
}
