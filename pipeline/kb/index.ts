// Entry of pipeline/kb/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { checkKbDir } from './kb-dir.js';
export { kbIndexOptions, openKbIndex } from './kb-index.js';
