// Entry of cli/commands/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { hookCommand, hooksCommand } from './hooks.js';
export { indexCommand } from './index-command.js';
export { mcpCommand } from './mcp.js';
export { daemonCommand, modelsCommand } from './models.js';
export { addCommand, forgetCommand, listCommand, showCommand, supersedeCommand } from './notes.js';
export { acceptCommand, rejectCommand, reviewCommand } from './review.js';
export { recallCommand, runRecallCommand } from './recall.js';
export { replayCommand } from './replay.js';
export { stagesCommand } from './stages.js';
export { statusCommand } from './status.js';
export { teamCommand } from './team.js';
export { explainCommand, traceCommand } from './trace.js';
export { viewCommand } from './view.js';
