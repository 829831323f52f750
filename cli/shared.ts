/**
 * What the command modules share: the process I/O they are given, scope options, JSON output and
 * the one-KB guard. Commands parse with yargs and call library functions; they never exit.
 */
import { SCOPE_OPTIONS, kbList } from './options.js';
import { UsageError } from '../core/errors.js';
import { wellFormedJson } from '../sinks/safe-text.js';

export interface CliIo {
  argv: string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTty: boolean;
  /** All of stdin as text (absent: no stdin, as in tests). */
  readStdin?: () => Promise<string>;
  /** True when stdin is a terminal (nothing piped in). */
  stdinIsTty?: boolean;
  /** Problems of the config file (recall.toml), printed once on stderr. */
  configWarnings?: string[];
}

export { SCOPE_OPTIONS };

export const JSON_OPTION = { json: { type: 'boolean', default: false, describe: 'machine-readable output (JSON)' } } as const;

export function jsonText(value: unknown): string {
  // Note text may hold lone surrogates: strict JSON parsers reject their `\ud800` escapes.
  return `${wellFormedJson(value, 2)}\n`;
}

/** The scope of a command that reads one KB: `--kb` given twice is a usage error naming the command. */
export function oneKb(a: Record<string, unknown>, command: string): { kb: string | null; global: boolean; allBranches: boolean } {
  const kbs = kbList(a['kb']);
  if (kbs.length > 1) throw new UsageError(`${command} reads one KB; --kb was given ${kbs.length} times`);
  return { kb: kbs[0] ?? null, global: a['global'] === true, allBranches: a['all-branches'] === true };
}

/** A progress line on a terminal (rewritten in place), nothing otherwise. */
export function ttyProgress(io: CliIo, label: string): ((done: number, total: number) => void) | undefined {
  if (!io.isTty) return undefined;
  let last = 0;
  return (done, total) => {
    const t = Date.now();
    if (done !== total && t - last < 100) return;
    last = t;
    io.stderr(`\r${label} ${done}/${total}${done === total ? '\n' : ''}`);
  };
}
