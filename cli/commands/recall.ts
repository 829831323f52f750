/** `recall [query..]`: the default command, recall learnings for a query (`recall -` reads it from stdin). */
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { runRecall, type RecallCommand } from '../../pipeline/run.js';
import { RECALL_OPTIONS, toRecallCommand, yargsOptions } from '../options.js';
import type { CliIo } from '../shared.js';

/** Run one recall and print its output (the fast path of main calls this too). */
export async function runRecallCommand(cmd: RecallCommand, io: CliIo): Promise<void> {
  if (cmd.query === '-') {
    // `recall -`: the query comes from stdin (a long prompt, or piped from another tool).
    const text = io.readStdin ? (await io.readStdin()).trim() : '';
    if (!text) throw new UsageError('empty query on stdin');
    cmd = { ...cmd, query: text };
  }
  const opener = io.openIndex ? { openIndex: io.openIndex } : {};
  const result = await runRecall(cmd, { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`), ...opener });
  if (result.stdout) io.stdout(result.stdout);
}

export function recallCommand(io: CliIo): CommandModule {
  return {
    command: '$0 [query..]',
    describe: 'Recall learnings for a query',
    builder: (y: Argv) =>
      y
        .positional('query', { type: 'string', array: true, describe: 'what the agent is about to do' })
        .options(yargsOptions(RECALL_OPTIONS)),
    handler: (a) => runRecallCommand(toRecallCommand(a), io),
  };
}
