// Entry of sinks/scrub/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { scrub, scrubAlong, scrubEvidence, scrubStrings } from './scrub.js';
