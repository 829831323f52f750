// Entry of sources/team/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type TeamConnection, openStore } from './connection.js';
export {
  AUTHORITIES,
  type Authority,
  type LocalIdentity,
  type Projection,
  TEAM_PREFIX,
  isTrusted,
  loadTrust,
  projectNote,
  renderPulledNote,
  saveTrust,
  shardFileName,
} from './projection.js';
export type { PullCursor, Stall } from './pull.js';
export type { PushCounts, PushItem, PushOrigin, RetireItem } from './push.js';
export type { StoreInfo } from './schema.js';
export { type StoreCounts, searchStore } from './search.js';
export {
  type Env,
  TeamError,
  type TeamErrorCode,
  type TeamSettings,
  displayUrl,
  loadTeamSettings,
  localPublishers,
  publisherId,
  readTeamConfig,
  redact,
  secretsOf,
  writeTeamConfig,
} from './settings.js';
export {
  type ShardSummary,
  applyToShard,
  clearShard,
  emptySummary,
  recountShard,
  retrustShard,
  teamAttachments,
  teamKey,
} from './shard.js';
