// Entry of scripts/hostile/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { BURST_CASES } from './burst-cases.js';
export { only, removeCaseDirs, repo } from './harness.js';
export { IO_CASES } from './io-cases.js';
export { KB_CASES } from './kb-cases.js';
export { LEAK_CASES } from './leak-cases.js';
export { LOAD_CASES } from './load-cases.js';
export { RACE_CASES } from './race-cases.js';
export { REPO_CASES } from './repo-cases.js';
export { WRITE_CASES } from './write-cases.js';
