/**
 * What the note page's forms do (POST /action): forget, supersede, set the how-to-apply line, and
 * accept or reject a note an agent wrote. Each calls the library function the CLI command calls
 * (pipeline/notes: the same checks, the KB's writer lock, the refusal of a harness's memory
 * folder), on a source this view reads, named by its root; a root the view does not read is
 * refused, whatever the form says. Authentication and CSRF are checked before (server.ts).
 */
import { errorMessage } from '../../core/errors.js';
import { forget, setHowToApply, supersede, type KbOptions, type NoteSource } from '../../pipeline/notes/index.js';
import { REVIEW } from './review.js';

export interface NotesIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  warn: (line: string) => void;
}

export const ACTIONS = ['forget', 'supersede', 'apply', 'accept', 'reject'] as const;
export type ActionName = (typeof ACTIONS)[number];

/** What an action did, for the page it redirects to. */
export const DONE: Readonly<Record<ActionName, string>> = {
  forget: 'Forgotten: the note was moved to the forgotten folder and is never recalled again (move the file back to restore it).',
  supersede: 'Superseded: recall no longer returns this note; it returns the note that replaces it.',
  apply: 'Saved: the how-to-apply line was changed.',
  accept: 'Accepted: the note is now yours and is recalled like any note you wrote.',
  reject: 'Rejected: the note was moved to the forgotten folder.',
};

export type ActionResult =
  { ok: true; action: ActionName; id: string; kb: string } | { ok: false; status: number; message: string; id: string; kb: string };

/** Runs one action from the form's fields, on the source of `sources` whose root the form names. */
export function runAction(form: URLSearchParams, sources: readonly NoteSource[], io: NotesIo): ActionResult {
  const action = form.get('action') ?? '';
  const id = (form.get('id') ?? '').trim();
  const root = form.get('kb') ?? '';
  const fail = (status: number, message: string): ActionResult => ({ ok: false, status, message, id, kb: root });
  if (!(ACTIONS as readonly string[]).includes(action)) return fail(400, `unknown action ${JSON.stringify(action)}`);
  if (!id) return fail(400, 'no note id');
  const source = sources.find((s) => s.root === root);
  if (!source) return fail(400, `${root || '(none)'}: not one of the sources this view reads`);
  if (source.readOnly)
    return fail(403, `${source.root}: a harness's own memory folder, which recall reads but never changes; change the note in the harness`);
  const kb: KbOptions = { kb: source.root, global: false, allBranches: false };
  const name = action as ActionName;
  try {
    switch (name) {
      case 'forget':
        forget(id, kb, io);
        break;
      case 'supersede': {
        const by = (form.get('new') ?? '').trim();
        if (!by) return fail(400, 'give the id of the note that replaces this one');
        supersede(id, by, kb, io);
        break;
      }
      case 'apply':
        setHowToApply(id, form.get('apply') ?? '', kb, io);
        break;
      case 'accept':
      case 'reject':
        // Not in this build: see review.ts.
        if (!REVIEW) return fail(501, `${name}: the review of agent-written notes is not in this build of recall`);
        REVIEW[name](id, kb, io);
        break;
    }
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return fail(code === 'E_USAGE' || code === 'E_NOT_FOUND' || code === 'E_NOTE_EDIT' ? 400 : 500, errorMessage(err));
  }
  return { ok: true, action: name, id, kb: source.root };
}
