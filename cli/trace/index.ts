// Entry of cli/trace/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { runExplain } from './explain.js';
