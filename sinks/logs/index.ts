// Entry of sinks/logs/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { leaveBreadcrumb, logHookLine } from './breadcrumb.js';
export { LockBusyError, withFileLock } from './file-lock.js';
export { LOG_MAX_BYTES, logGap, logRecall, recordFollowup } from './recall-log.js';
export { claimInjected, claimNotice, readInjected, recordInjected, resetInjected } from './session-injected.js';
