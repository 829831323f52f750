// Entry of cli/stages/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type StagesScope, stageHydrate, stageIndex, stageTimeline } from './stages.js';
