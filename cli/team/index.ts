// Entry of cli/team/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type TeamIo, type TeamStatus, teamInit, teamPull, teamPush } from './team.js';
