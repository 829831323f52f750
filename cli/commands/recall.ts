/** `recall [query..]`: the default command, recall learnings for a query (`recall -` reads it from stdin). */
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { runRecall, type RecallCommand } from '../../pipeline/run.js';
import { RECALL_OPTIONS, toRecallCommand, yargsOptions } from '../options.js';
import { commandLike } from '../command-words.js';
import type { RecallOutcome } from '../../core/types.js';
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
  // A word that may be a mistyped command: its diagnostics wait, since a typo is said in one line
  // (the abstention it would print is what "no note matches" already says).
  const held: string[] | null = typoCandidate(cmd, io.argv) ? [] : null;
  const warn = (l: string): void => void (held ? held.push(l) : io.stderr(`${l}\n`));
  const result = await runRecall(cmd, { env: io.env, cwd: io.cwd, warn, ...opener });
  const typo = typoOfCommand(cmd, io.argv, result.outcome);
  if (typo)
    throw new UsageError(
      `unknown command "${cmd.query}"; did you mean \`recall ${typo}\`? (no note matches "${cmd.query}"; \`recall -- ${cmd.query}\` searches it)`,
    );
  for (const l of held ?? []) io.stderr(`${l}\n`);
  if (result.stdout) io.stdout(result.stdout);
}

/**
 * The command a plain one-word recall that found nothing was probably meant to be (`recall stauts`),
 * else null. A word that finds a note is a search, however close to a command it is; `recall --
 * WORD` always searches; a machine format (json, fleet-context) always gets its answer, never a usage error.
 */
function typoOfCommand(cmd: RecallCommand, argv: readonly string[], outcome: RecallOutcome | null): string | null {
  if (!typoCandidate(cmd, argv)) return null;
  if (!outcome || outcome.results.length > 0 || outcome.weak.length > 0) return null;
  return commandLike(cmd.query);
}

/** Whether the query could be a mistyped command: one word typed on the command line (not from stdin, not after `--`), close to a command. */
function typoCandidate(cmd: RecallCommand, argv: readonly string[]): boolean {
  if (cmd.format !== 'markdown' || argv.includes('--') || /\s/.test(cmd.query) || !argv.includes(cmd.query)) return false;
  return commandLike(cmd.query) !== null;
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
