// Entry of sources/kb/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type AttachedRoot, decoratorFor, walkWithAttached } from './attached-roots.js';
export { MAX_NOTE_BYTES, readText } from './note-file-read.js';
export { type KbFile, type WalkProblem, forgottenDir, hasMarkdown, kbLayout, notesDir } from './walk.js';
