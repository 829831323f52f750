/**
 * The `recall` command line. A plain `recall QUERY [options]` is parsed by the fast path (the shared
 * option table through yargs-parser); help, subcommands and anything the fast path does not
 * recognise go to yargs (cli/parser.ts), loaded on demand. Library functions do the work; one handler
 * (cli/exit-status.ts) maps each error's stable code to its exit status (2 = usage; 1 = a named
 * failure; 0 = everything else, as in the reference: a runtime problem never fails the caller).
 * stdout carries only the requested output.
 */
import { fastParse } from './options.js';
import { runRecallCommand } from './commands/index.js';
import { exitStatusOf } from './exit-status.js';
import type { CliIo } from './shared.js';

export type { CliIo };

/** What bare `recall` prints: the few commands a new user needs, and where the rest is. */
export const SHORT_HELP = `recall: prior learnings for a coding agent, from a markdown KB

  recall QUERY            the learnings most relevant to QUERY (\`recall -\` reads it from stdin)
  recall status           which KBs and memory folders are read, the index, models and hooks
  recall list             the notes read, newest first (\`recall show ID\` prints one)
  recall add              write a learning (--title, --insight, --apply)
  recall hooks install    wire the hooks into Claude Code, Codex or Copilot (--harness)

Every command: \`recall --help\`; one command: \`recall help COMMAND\`.
`;

export async function main(io: CliIo): Promise<number> {
  for (const w of io.configWarnings ?? []) io.stderr(`recall: ${w}\n`);
  try {
    // Bare `recall`: what to type next, as gh and git print, rather than an "empty query" error.
    if (io.argv.length === 0) {
      io.stdout(SHORT_HELP);
      return 0;
    }
    // `recall help [command]` and `recall version` are the flags' words, as in git and npm.
    if (io.argv[0] === 'help') io = { ...io, argv: [...io.argv.slice(1), '--help'] };
    else if (io.argv[0] === 'version' && io.argv.length === 1) io = { ...io, argv: ['--version'] };
    const fast = fastParse(io.argv);
    if (!fast) return await (await import('./parser.js')).runYargs(io);
    await runRecallCommand(fast, io);
    return 0;
  } catch (err) {
    return exitStatusOf(err, io);
  }
}
