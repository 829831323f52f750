// Entry of scripts/verify/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { verifyClaude } from './claude.js';
export { verifyCodex } from './codex.js';
export {
  CLIS,
  base,
  bin,
  check,
  env,
  failureCount,
  home,
  keep,
  prefix,
  repo,
  run,
  section,
  seedKb,
  seedProject,
  seedTranscript,
} from './common.js';
export { verifyCopilot } from './copilot.js';
