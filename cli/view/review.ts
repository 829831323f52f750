/**
 * Accept and reject of notes an agent wrote, for the note page's actions: the functions `recall
 * accept ID` and `recall reject ID` call (pipeline/notes review.ts: the KB's writer lock, the
 * refusal of a harness's memory folder, reject only for a note awaiting review), and the rule that
 * tells a note awaiting review (core/note review.ts). The view is the person's own browser, behind
 * the run's session and CSRF checks; like `recall accept`, a view started from an agent's shell
 * (whose agent could read the token it printed) refuses to accept.
 */
import { acceptNote, agentShell, rejectNote, type KbOptions } from '../../pipeline/notes/index.js';
import { unreviewedLabel, unreviewedMark } from '../../core/note/index.js';
import { UsageError } from '../../core/errors.js';
import type { NotesIo } from './actions.js';

export interface ReviewActions {
  /** The label of a note awaiting a person's review ("written by the agent in session …, not reviewed"), else null. */
  unreviewed(frontmatter: Record<string, unknown>): string | null;
  accept(id: string, kb: KbOptions, io: NotesIo): { id: string };
  reject(id: string, kb: KbOptions, io: NotesIo): { id: string };
}

export const REVIEW: ReviewActions | null = {
  unreviewed: (fm) => {
    const m = unreviewedMark(fm);
    return m ? unreviewedLabel(m) : null;
  },
  accept: (id, kb, io) => {
    const agent = agentShell(io.env);
    if (agent)
      throw new UsageError(`accept: refused in a recall view started from an agent's shell (${agent}); start it in your own terminal`);
    return acceptNote(id, kb, io);
  },
  reject: (id, kb, io) => rejectNote(id, kb, io),
};
