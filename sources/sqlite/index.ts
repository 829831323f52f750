// Entry of sources/sqlite/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type SqlDatabase, type SqlStatement, fileTag, openDatabase, sqliteDriver, sqliteErrorCode } from './sqlite.js';
