// Entry of pipeline/session/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { RECALL_LOG_VERSION, bookkeeping, settingsInForce } from './bookkeeping.js';
export { degradationLines, fieldMissing, renderOutcome, scopeJson } from './render-outcome.js';
export { type IndexOpener, type ScopedIndex, refreshScoped } from './session-index.js';
export { openSession } from './session.js';
