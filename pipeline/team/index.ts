// Entry of pipeline/team/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type InitOptions, type InitReport, teamInit } from './init.js';
export { PULL_PAGE, type TeamIo } from './io.js';
export { type PullOptions, type PullReport, teamPull } from './pull.js';
export { shareMark } from './push-plan.js';
export { type PushOptions, type PushReport, teamPush } from './push.js';
export { type TeamStatus, type TrustReport, teamHistory, teamStatus, teamTrust } from './status.js';
export type { Stall } from '../../sources/team/index.js';
