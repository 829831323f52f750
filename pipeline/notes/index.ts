// Entry of pipeline/notes/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export type { KbOptions } from './kb.js';
export { showNote } from './notes.js';
export { PersonsNoteError, addNote, forget, supersede, type WriteGuard } from './write.js';
export { acceptNote, agentShell, listUnreviewed, rejectNote, type AcceptResult, type UnreviewedNote } from './review.js';
export { notesOfEverySource, type NoteSource, type NoteState, type SourceNote } from './all-notes.js';
export { HOW_TO_APPLY_MAX_CHARS, setHowToApply, withHowToApply, type HowToApplyResult } from './edit.js';
