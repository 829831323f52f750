/**
 * A person's review of the notes agents wrote: `recall review` lists them, `recall accept ID` makes
 * one the person's own, `recall reject ID` retires it. The same functions serve `recall view`'s note
 * actions. What makes a note unreviewed, and what that changes, is core/note/review.ts.
 *
 * - accept: the note's frontmatter gets `status: approved` and `approved_at` (the reference's
 *   learnings lifecycle words), and optionally a confidence tier the person chooses; nothing else
 *   of the file changes. From then on it ranks and injects like any note a person wrote.
 * - reject: the note moves to the forgotten folder exactly as `recall forget` moves it, its
 *   forgotten copy marked `status: rejected`; a person's note is refused (use `recall forget`).
 *
 * Both edit the file as it is now under the KB's writer lock (pipeline/notes/write.ts), so a note
 * changed since the index was read is judged on its current text.
 */
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { STATUS_APPROVED, str, unreviewedLabel, unreviewedMark } from '../../core/note/index.js';
import { TIER_CONFIDENCE, type ConfidenceTier } from '../../core/confidence.js';
import { notesByDate } from '../../sources/index/index.js';
import { rewriteNote, withFrontmatter } from '../../sinks/note-writer.js';
import { withKb, type KbOptions, type NotesIo } from './kb.js';
import { retire, type ForgetResult } from './write.js';
import { editLiveNote } from './edit.js';

/** One note awaiting review, as `recall review` lists it (`--json` prints these objects). */
export interface UnreviewedNote {
  id: string;
  title: string;
  key_insight: string;
  how_to_apply: string;
  /** The tier it stands with now (at most MEDIUM), and the one its file claims. */
  confidence: string;
  claimed_confidence: string;
  tags: string[];
  date: string | null;
  /** Who wrote it, as its provenance says. */
  source_tool: string;
  harness: string;
  session_id: string;
  /** The label recall shows with it: `written by the agent in session …, not reviewed`. */
  label: string;
  /** The note's file, absolute. */
  path: string;
}

/** The live notes of the KB awaiting a person's review, newest first. */
export function listUnreviewed(opts: KbOptions, io: NotesIo): UnreviewedNote[] {
  return withKb(opts, io, ({ index, scope }) =>
    notesByDate(index)
      .filter((n) => n.location === 'documents' && n.review)
      .map((n) => ({
        id: n.displayId,
        title: n.title,
        key_insight: n.keyInsight,
        how_to_apply: n.howToApply,
        confidence: n.confidence,
        claimed_confidence: str(n.frontmatter['confidence']).toUpperCase(),
        tags: n.tags,
        date: n.dateMs !== null ? new Date(n.dateMs).toISOString().slice(0, 10) : null,
        source_tool: n.review!.tool,
        harness: n.review!.harness,
        session_id: n.review!.sessionId,
        label: unreviewedLabel(n.review!),
        path: path.join(scope.root, n.path),
      })),
  );
}

export interface AcceptResult {
  id: string;
  path: string;
  /** The tier the note stands with after acceptance (its own, or the one given). */
  confidence: string;
}

/**
 * Accept an agent's note as the person's own: `status: approved`, `approved_at`, and `confidence`
 * (with its `confidence_num`) when given. Throws UsageError for a note that is not awaiting review.
 */
export function acceptNote(id: string, opts: KbOptions, io: NotesIo, o: { confidence?: ConfidenceTier; now?: Date } = {}): AcceptResult {
  return editLiveNote('accept', id, opts, io, ({ abs, note, text, now }) => {
    if (!unreviewedMark(now.frontmatter)) throw new UsageError(`${note.key}: not awaiting review (a person wrote or accepted it)`);
    const set: Record<string, unknown> = { status: STATUS_APPROVED, approved_at: (o.now ?? new Date()).toISOString() };
    if (o.confidence) Object.assign(set, { confidence: o.confidence, confidence_num: TIER_CONFIDENCE[o.confidence] });
    rewriteNote(abs, withFrontmatter(text, set));
    return { id: note.key, path: abs, confidence: (o.confidence ?? (str(now.frontmatter['confidence']) || 'medium')).toUpperCase() };
  });
}

/**
 * Reject an agent's note: moved to the forgotten folder as `recall forget` moves it, its copy marked
 * `status: rejected`. A person's note is refused (PersonsNoteError): forgetting one is `recall forget`.
 */
export function rejectNote(id: string, opts: KbOptions, io: NotesIo): ForgetResult {
  try {
    return retire(id, opts, io, { what: 'reject', guard: 'unreviewed', set: { status: 'rejected' } });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'E_PERSONS_NOTE')
      throw new UsageError(`${id}: not awaiting review (a person wrote or accepted it); to retire it, run: recall forget ${id}`);
    throw err;
  }
}

/**
 * Why this process looks like an agent's shell (null when it does not): Claude Code gives the
 * commands its agent runs CLAUDECODE=1, Codex gives them CODEX_THREAD_ID. Acceptance is a person's
 * word, so `recall accept` refuses there: a hostile file that tells the agent to save a note and then
 * accept it gets a refusal. It is a guard against an instruction followed, not a sandbox: an agent
 * that can edit the KB's files can change any note.
 */
export function agentShell(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env['CLAUDECODE'] === '1') return 'CLAUDECODE=1 (Claude Code runs this command)';
  if (env['CODEX_THREAD_ID']) return 'CODEX_THREAD_ID is set (Codex runs this command)';
  return null;
}
