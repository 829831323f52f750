/**
 * Library entry points behind the CLI, the hooks and the tools: open a KB (pipeline/session/session.ts), run one
 * recall and render it (pipeline/session/run.ts), index a KB (run-index.ts).
 *
 * Nothing here writes to stdout or exits: results are returned to the caller.
 */
import type { RecallCommand, RunIo, RunResult } from './command.js';
import { openSession } from './session/index.js';

export { DEFAULT_COMMAND } from './command.js';
export type {
  IndexOpener,
  NoteSet,
  OutputFormat,
  RecallAnswer,
  RecallCommand,
  RecallSession,
  RunIo,
  RunOptions,
  RunResult,
  SessionOptions,
} from './command.js';
export { bookkeeping, RECALL_LOG_VERSION, settingsInForce } from './session/index.js';
export { checkKbDir } from './kb/index.js';
/** Callers open a KB's index through run.js (stages, trace, team). */
export { openKbIndex } from './kb/index.js';
export { degradationLines, fieldMissing, scopeJson } from './session/index.js';
export { IndexFailed, runIndex, type IndexCommand } from './run-index.js';
export { openSession } from './session/index.js';

/** One recall of one command: several `--kb` are searched together, one KB through a session. */
export async function runRecall(cmd: RecallCommand, io: RunIo): Promise<RunResult> {
  if (cmd.kbs && cmd.kbs.length > 1) {
    const { runMultiRecall } = await import('./session/multi-kb.js');
    return runMultiRecall(cmd, io);
  }
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: cmd.verbose }, io);
  try {
    return await session.run(cmd);
  } finally {
    session.close();
  }
}
