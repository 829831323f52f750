// Entry of sources/arms/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { bm25Arm } from './bm25.js';
export { findOnPath } from './exec.js';
export { graphArm } from './graph.js';
export { parseQmdOutput, qmdArm } from './qmd.js';
export { reflectArm } from './reflect.js';
export { teamLiveArm } from './team.js';
export { temporalArm } from './temporal.js';
export { unavailableArm } from './unavailable.js';
export { vectorArm } from './vector.js';
