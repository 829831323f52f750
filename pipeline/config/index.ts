// Entry of pipeline/config/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type RecallConfig, loadConfig, modelSettings } from './config.js';
export { configFilePath, withConfigFile } from './file.js';
