// Entry of operators/action/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { readToolCall, actionSummary, shellCommands, projectPath, type ToolAction, type ActionKind } from './tool-call.js';
export { noteTriggers, type NoteTriggers } from './triggers.js';
export { commandPattern, globRegExp, isPathPattern, type CommandPattern } from './patterns.js';
export { ACTION_MATCH_THRESHOLD, MAX_ACTION_NOTES, clearsBar, matchAction, type ActionMatch, type MatchOptions } from './match.js';
export { buildTriggerIndex, type TriggerIndex } from './trigger-index.js';
export { runsPattern, followsNote, commandName } from './commands.js';
export { spanStances } from './stances.js';
export { rawTokens, stemsOf, tokenWords } from './terms.js';
export { askedSteps, gitStepsOf, nameStepStems, noteName } from './git-steps.js';
export { askedWork, askedWorkWords, isRuleNote, nameWords, workOf, workStems, workTools } from './asked-work.js';
export { onlyLooks } from './looking.js';
