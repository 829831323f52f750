// Entry of pipeline/recall/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export type { RecallMode } from './arm-specs.js';
export { type Engines, resolveEngines } from './engines.js';
export { recall$ } from './recall.js';
export type { RecallRequest } from './request.js';
export { linkHub, recallDeps, temporalExtractor } from './wiring.js';
