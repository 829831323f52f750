// Entry of scripts/bench/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { benchHooks } from './hooks.js';
export { generateKb } from './kb-gen.js';
export { BIN, pct, repo, time, timeWithRss } from './measure.js';
export { benchModels } from './models.js';
export { benchQmd, qmdPeer } from './qmd.js';
