// Entry of core/settings/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type Env, SettingsReader } from './reader.js';
export { SETTINGS, type Setting, numberDefault, setting, withSettingsTable } from './settings.js';
