/** `recall trace` and `recall explain`: what each stage of a recall did, and why a note is or is not in it. */
import type { Argv, CommandModule } from 'yargs';
import { NotFoundError, UsageError } from '../../core/errors.js';
import { RECALL_OPTIONS, lastValue, toRecallCommand, yargsOptions } from '../options.js';
import { jsonText, oneKb, serviceIo, type CliIo } from '../shared.js';

/** A file's text, or a usage error naming it. */
async function readFile(file: string): Promise<string> {
  const fs = await import('node:fs');
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--tool-call ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/** trace and explain show what every stage does: a cached run would skip the arms they describe. */
const UNCACHED = {
  cache: { type: 'boolean', default: false, describe: 'reuse a cached fetch (default off here: a cached run skips the arms)' },
} as const;

/** The recall a trace or explain runs: every recall option, rendered as JSON, on one KB. */
function tracedCommand(a: Record<string, unknown>, command: string): ReturnType<typeof toRecallCommand> {
  return toRecallCommand({ ...a, json: false, format: 'json', kb: oneKb(a, command).kb ?? undefined });
}

export function traceCommand(io: CliIo): CommandModule {
  return {
    command: 'trace [query..]',
    describe: 'Run a recall and stream what each stage did (--format text | jsonl; --json = jsonl); takes every recall option',
    builder: (y: Argv) =>
      y.positional('query', { type: 'string', array: true }).options({
        ...yargsOptions(RECALL_OPTIONS),
        ...UNCACHED,
        format: { type: 'string', default: 'text', describe: 'text | jsonl' },
        'tool-call': {
          type: 'string',
          describe: 'trace the tool-call hook instead: a PreToolUse hook JSON from this file (- = stdin)',
        },
      }),
    handler: async (a) => {
      const fmt = a['json'] === true ? 'jsonl' : String(lastValue(a['format']));
      if (fmt !== 'text' && fmt !== 'jsonl') throw new UsageError(`--format must be text or jsonl for trace (got ${JSON.stringify(fmt)})`);
      if (a['tool-call'] !== undefined) {
        const src = String(lastValue(a['tool-call']));
        const text = src === '-' || src === '' ? (io.readStdin ? await io.readStdin() : '') : await readFile(src);
        const { runActionTrace } = await import('../trace/action.js');
        // The KB the user names is the one traced (without one, what the hook reads from here).
        return runActionTrace(text, serviceIo(io), fmt, io.stdout, oneKb(a, 'trace'));
      }
      const { runTrace } = await import('../trace/trace.js');
      await runTrace(tracedCommand(a, 'trace'), serviceIo(io), fmt, io.stdout, io.isTty && fmt === 'text' && !io.env['NO_COLOR']);
    },
  };
}

export function explainCommand(io: CliIo): CommandModule {
  return {
    command: 'explain [query..]',
    describe: 'Say why a note is or is not in the result of a query (--id ID; --format text | json); takes every recall option',
    builder: (y: Argv) =>
      y.positional('query', { type: 'string', array: true }).options({
        ...yargsOptions(RECALL_OPTIONS),
        ...UNCACHED,
        format: { type: 'string', default: 'text', describe: 'text | json' },
        id: { type: 'string', demandOption: true, describe: 'note id (or file name without .md)' },
      }),
    handler: async (a) => {
      const fmt = a['json'] === true ? 'json' : String(lastValue(a['format']));
      if (fmt !== 'text' && fmt !== 'json') throw new UsageError(`--format must be text or json for explain (got ${JSON.stringify(fmt)})`);
      const { runExplain } = await import('../trace/trace.js');
      const cmd = tracedCommand(a, 'explain');
      // Which sources the recall reads, when they are not one KB the user chose (as list and trace say).
      const { commandSources, sourcesLine } = await import('../../pipeline/kb-sources/index.js');
      const line = sourcesLine(commandSources(cmd, io).sources);
      if (line) io.stderr(`${line}\n`);
      const r = await runExplain(cmd, String(lastValue(a['id'])), serviceIo(io));
      if (r.verdict === 'unknown-id') throw new NotFoundError(r.message);
      io.stdout(fmt === 'json' ? jsonText(r) : `${r.message}\n`);
    },
  };
}
