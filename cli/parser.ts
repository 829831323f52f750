/**
 * The yargs side of the command line: help, sub-commands and anything the fast path of main does
 * not recognise. One command module per command (cli/commands/); this file only assembles them, in
 * the order the help lists them. Loaded on demand: a plain `recall QUERY` never loads yargs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.js';
import { installRoot } from '../hooks/install/index.js';
import { oneLineYargsMessage, type CliIo, type ExitStatus } from './shared.js';
import { COMMAND_WORDS, RECALL_OPTIONS } from './options.js';
import {
  statusCommand,
  addCommand,
  forgetCommand,
  acceptCommand,
  rejectCommand,
  reviewCommand,
  listCommand,
  showCommand,
  supersedeCommand,
  indexCommand,
  daemonCommand,
  modelsCommand,
  hookCommand,
  hooksCommand,
  stagesCommand,
  explainCommand,
  traceCommand,
  replayCommand,
  teamCommand,
  mcpCommand,
  viewCommand,
  recallCommand,
} from './commands/index.js';

const USAGE =
  '$0 [query..] [options]\n\nRetrieve the prior learnings most relevant to a query from a markdown KB (`recall -` reads the query from stdin; `recall -- WORD` searches a word that is also a command; `recall help COMMAND` = `recall COMMAND --help`).';

/** This install's version (package.json next to the sources or the bundle). */
export function recallVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(installRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Every command of the CLI, in the order the help lists them. */
export function commandModules(io: CliIo, exit: ExitStatus): CommandModule[] {
  return [
    statusCommand(io),
    showCommand(io),
    listCommand(io),
    addCommand(io),
    supersedeCommand(io),
    forgetCommand(io),
    reviewCommand(io),
    acceptCommand(io),
    rejectCommand(io),
    indexCommand(io),
    modelsCommand(io),
    hookCommand(),
    hooksCommand(io),
    stagesCommand(io, exit),
    traceCommand(io),
    explainCommand(io),
    replayCommand(io, exit),
    viewCommand(io),
    teamCommand(io),
    mcpCommand(io),
    daemonCommand(io),
    recallCommand(io),
  ];
}

/**
 * What the shell completes for the word being typed: yargs's own completions, plus the options of a
 * plain recall (`recall --li` → `--limit`), which yargs does not offer because they belong to the
 * default command; without the default command's `$0`. Only the words that start with what is typed.
 */
export function completionsOf(current: string, argv: { _: unknown[] }, completions: readonly string[], zsh: boolean): string[] {
  const words = argv._.map(String).filter((w) => w !== 'recall' && w !== current);
  const out = completions.filter((c) => !c.startsWith('$0'));
  const inCommand = words.some((w) => (COMMAND_WORDS as readonly string[]).includes(w));
  if (!inCommand && current.startsWith('-')) {
    for (const [key, o] of Object.entries(RECALL_OPTIONS)) {
      const flag = `--${key}`;
      if (!out.some((c) => c === flag || c.startsWith(`${flag}:`))) out.push(zsh ? `${flag}:${o.describe.replace(/:/g, '\\:')}` : flag);
    }
  }
  return out.filter((c) => c.startsWith(current));
}

/** Parse and run `io.argv` with yargs; resolves to the exit status a command asked for (0 unless one did). */
export async function runYargs(io: CliIo): Promise<number> {
  const { default: yargs } = await import('yargs');
  const exit: ExitStatus = { code: 0 };
  await yargs(io.argv)
    .scriptName('recall')
    .usage(USAGE)
    .parserConfiguration({ 'camel-case-expansion': false, 'boolean-negation': true, 'parse-positional-numbers': false })
    .strict()
    .help()
    .alias('help', 'h')
    .version(recallVersion())
    .alias('version', 'V')
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      // yargs's own errors (YError) carry no code: they are usage errors, said in one line.
      if (err?.name === 'YError') throw new UsageError(oneLineYargsMessage(err.message));
      throw err ?? new UsageError(oneLineYargsMessage(msg));
    })
    .completion(
      'completion',
      'Print a bash/zsh completion script (add `source <(recall completion)` to your shell profile; `recall` must be on PATH)',
      (
        current: string,
        argv: { _: unknown[] },
        defaults: (done: (err: Error | null, c: string[] | undefined) => void) => void,
        done: (c: string[]) => void,
      ) => defaults((_err, completions) => done(completionsOf(current, argv, completions ?? [], /zsh/.test(io.env['SHELL'] ?? '')))),
    )
    .command(commandModules(io, exit))
    .parseAsync();
  return exit.code;
}
