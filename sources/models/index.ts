// Entry of sources/models/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type ClientOptions, daemonRequest } from './daemon-client.js';
export { serve } from './daemon-server.js';
export { type ModelRole, type ModelSettings, modelPresence } from './model-store.js';
export type { PullErrorCode } from './pull-errors.js';
export { VECTOR_DDL, decodeVector, encodeVector } from './vector-store.js';
