/** Package managers that run the project's programs and scripts (`poetry run`, `pnpm exec`). Data only. */

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
