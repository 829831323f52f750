/**
 * Accept and reject of notes an agent wrote, for the note page's actions.
 *
 * NOT WIRED YET: the review of agent-written notes (`recall review`, `recall accept ID`, `recall
 * reject ID`: which notes are unreviewed, and the writes that accept or retire one) is being built
 * on its own branch and was not in this build. Until it lands, REVIEW is null: the note page shows
 * no accept/reject buttons and POST /action answers accept and reject with 501. To wire it, set
 * REVIEW to the library's functions, e.g.
 *
 *   import { acceptNote, rejectNote } from '../../pipeline/notes/index.js';
 *   import { unreviewedLabel, unreviewedMark } from '../../core/note/index.js';
 *   export const REVIEW: ReviewActions = {
 *     unreviewed: (fm) => { const m = unreviewedMark(fm); return m ? unreviewedLabel(m) : null; },
 *     accept: (id, kb, io) => acceptNote(id, kb, io),
 *     reject: (id, kb, io) => rejectNote(id, kb, io),
 *   };
 *
 * Both must take the KB's writer lock and refuse a harness's memory folder, as forget does.
 */
import type { KbOptions } from '../../pipeline/notes/index.js';
import type { NotesIo } from './actions.js';

export interface ReviewActions {
  /** The label of a note awaiting a person's review ("written by the agent in session …, not reviewed"), else null. */
  unreviewed(frontmatter: Record<string, unknown>): string | null;
  accept(id: string, kb: KbOptions, io: NotesIo): { id: string };
  reject(id: string, kb: KbOptions, io: NotesIo): { id: string };
}

export const REVIEW: ReviewActions | null = null;
