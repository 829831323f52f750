// Entry of core/note/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { codeSpans, howToApply, parseTags, str } from './fields.js';
export { declaredKey, declaredKeyPrefix, distinctKey, hashedId, isDistinctKeyOf, isHashedId, noteGist, readableId } from './gist.js';
export { type FleetLookup, type Note, type NoteLocation, type NoteOrigin, declaredIdOf, isMemoryIndex, parseNote, pathId } from './note.js';
export { isMemory, memoryNameWords, replacedLinks, statedReplacements } from './memory.js';
export { MODEL_TEXT_CHARS, extraFieldsText, modelText, searchableText } from './text.js';
export {
  type NoteAuthor,
  type UnreviewedMark,
  STATUS_APPROVED,
  STATUS_PROPOSED,
  isAgentAuthor,
  noteAuthor,
  shortSession,
  unreviewedLabel,
  unreviewedMark,
} from './review.js';
