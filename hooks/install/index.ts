// Entry of hooks/install/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { HARNESSES, installRoot } from './harness-config.js';
export { type HookWiring, claudePluginInstalled, hookWiring, recallEvents } from './wiring-status.js';
export { codexPluginInstalled } from './codex-plugin.js';
