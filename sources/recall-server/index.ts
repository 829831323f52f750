// Entry of sources/recall-server/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { type Failure, ask } from './ask.js';
export {
  ACCEPTED_LINE,
  type CliRequest,
  type Env,
  GO_LINE,
  type HookRequest,
  MAX_REQUEST_BYTES,
  PROTOCOL_VERSION,
  type ServerAnswer,
  type ServerRequest,
  type ServerStatus,
  buildStamp,
  checkSocketDir,
  serverDisabled,
  serverSocketPath,
  serverWaitMs,
  stateDirOf,
} from './protocol.js';
