/**
 * What the command modules share: the process I/O they are given, scope options, JSON output and
 * the one-KB guard. Commands parse with yargs and call library functions; they never exit.
 */
import { SCOPE_OPTIONS, kbList } from './options.js';
import { UsageError } from '../core/errors.js';
import { wellFormedJson } from '../sinks/safe-text.js';
import type { IndexOpener } from '../pipeline/run.js';

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
  /** How a recall gets its KB index (the recall server's pool); absent, it opens and refreshes it. */
  openIndex?: IndexOpener;
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

/** A progress line on a terminal (rewritten in place, `label done/total unit`), nothing otherwise. */
export function ttyProgress(io: CliIo, label: string, unit = ''): ((done: number, total: number) => void) | undefined {
  if (!io.isTty) return undefined;
  let last = 0;
  return (done, total) => {
    const t = Date.now();
    if (done !== total && t - last < 100) return;
    last = t;
    io.stderr(`\r${label} ${done}/${total}${unit ? ` ${unit}` : ''}${done === total ? '\n' : ''}`);
  };
}

/** The I/O a library function takes: env, cwd and a warning line printer (stderr). */
export function serviceIo(io: CliIo): { env: CliIo['env']; cwd: string; warn: (line: string) => void } {
  return { env: io.env, cwd: io.cwd, warn: (l: string) => io.stderr(`${l}\n`) };
}

/**
 * The exit status of one command-line run, for a command that succeeded but wants a non-zero status
 * (replay --fail-on-change, a stage that answered with an error). Each run gets its own.
 */
export interface ExitStatus {
  code: number;
}

/** The action of `recall hooks|models|daemon`, or a usage error naming the choices when it is missing. */
export function actionOf(a: Record<string, unknown>, command: string, choices: readonly string[], fallback?: string): string {
  const v = a['action'] as string | undefined;
  if (v !== undefined) return v;
  if (fallback) return fallback;
  throw new UsageError(`${command} needs an action: ${choices.join(', ')} (recall ${command} --help)`);
}

/**
 * yargs's messages in one line, with the valid choices named: "Invalid values:\n  Argument: step,
 * Given: "bogus", Choices: …" becomes `step must be one of workflow, index, … (got "bogus")`.
 */
export function oneLineYargsMessage(msg: string): string {
  const m = /Invalid values:\s*Argument: ([\w-]+), Given: ("[^"]*"|\S+), Choices: (.+)/s.exec(msg);
  if (m) {
    const choices = m[3]!
      .split(/,\s*/)
      .map((c) => c.trim().replace(/^"|"$/g, ''))
      .join(', ');
    const name = m[1]!.length > 1 && /^[a-z]/.test(m[1]!) && !['step', 'action', 'name'].includes(m[1]!) ? `--${m[1]}` : m[1]!;
    return `${name} must be one of ${choices} (got ${m[2]})`;
  }
  return msg
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}
