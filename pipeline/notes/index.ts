// Entry of pipeline/notes/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export type { KbOptions } from './kb.js';
export { showNote } from './notes.js';
export { PersonsNoteError, addNote, forget, supersede, type WriteGuard } from './write.js';
export { acceptNote, agentShell, listUnreviewed, rejectNote, type AcceptResult, type UnreviewedNote } from './review.js';
