/** Package managers that run the project's programs and scripts (`poetry run`, `pnpm exec`), and the program a command runs. */

/** The program a command runs, without its folder (`/usr/bin/git` → `git`). */
export const program = (command: readonly string[]): string => (command[0] ?? '').toLowerCase().split('/').pop() ?? '';

/** A runner's subcommand that runs another program (`uv run`, `pnpm exec`). */
export const RUNNER_WORDS: ReadonlySet<string> = new Set(['run', 'exec']);
/** Package managers whose `run`/`exec` runs a program or script of the project. */
export const RUNNER_PROGRAMS: ReadonlySet<string> = new Set([
  'poetry',
  'uv',
  'pipenv',
  'pdm',
  'hatch',
  'rye',
  'bundle',
  'npm',
  'pnpm',
  'yarn',
  'bun',
]);
/**
 * The subcommand by which each runner runs a program (not a package script: `npm run build` runs the
 * script `build`, `npm exec eslint` the program): `poetry run pip install x` runs `pip install x`.
 */
export const RUNS_PROGRAM: Readonly<Record<string, string>> = {
  poetry: 'run',
  uv: 'run',
  pipenv: 'run',
  pdm: 'run',
  hatch: 'run',
  rye: 'run',
  bundle: 'exec',
  npm: 'exec',
  pnpm: 'exec',
  yarn: 'exec',
};

/** Options of task runners (turbo, nx, npm, pnpm, yarn) that take the next word as their value. */
export const RUNNER_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  '--filter',
  '-F',
  '--scope',
  '--workspace',
  '-w',
  '--project',
  '-p',
  '--config',
  '-c',
  '--cwd',
  '--dir',
  '-C',
]);

/**
 * Where the program a package manager's runner runs starts in a command's words, the runner's own
 * options passed over (`pnpm --filter @app/worker exec wrangler tail` → 4, at `wrangler`); -1 when
 * the command runs no program that way.
 */
export function runsProgramAt(words: readonly string[]): number {
  const sub = RUNS_PROGRAM[words[0] ?? ''];
  if (sub === undefined) return -1;
  for (let k = 1; k < Math.min(words.length, 8); k += 1) {
    const w = words[k]!;
    if (w === sub) return /^[a-z][\w.-]*$/.test(words[k + 1] ?? '') ? k + 1 : -1;
    if (!w.startsWith('-')) return -1;
    if (RUNNER_VALUE_OPTIONS.has(w)) k += 1;
  }
  return -1;
}
