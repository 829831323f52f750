// Entry of sources/query/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { mayContainDate } from './date-precheck.js';
export { expandQuery, expansionsAvailable } from './word-expansion.js';
export { infoOf, wordCounts } from './word-info.js';
