/**
 * Settings whose value is a path. A relative one means "relative to where the command was run":
 * a one-shot process resolves it against its own working directory, but the recall server runs
 * with a working directory of its own, so the thin client (and the server again, for values that
 * come from recall.toml) makes them absolute against the caller's directory before they are used.
 * Without that, `REFLECT_MODELS_DIR=models` would name the caller's folder in one process and the
 * server's in the other, and the models would silently go missing. `REFLECT_STATE_DIR` alone is
 * taken from HOME, as every process takes it. A list setting (`RECALL_KBS`) has each of its paths
 * made absolute.
 */
import path from 'node:path';
import { resolveStateDir } from './state-dir.js';
import { SETTINGS } from './settings/index.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Variables recall reads as paths that are not its own settings: the config file's location, and
 * what the harnesses, the XDG base directories and PostgreSQL's client (the team store's TLS files)
 * define. Recall's own path settings come from the settings table (`path` and `list` there).
 */
const OTHER_PATH_VARIABLES: readonly string[] = [
  'RECALL_CONFIG',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
  'XDG_CONFIG_HOME',
  'HOME',
  'PGSSLROOTCERT',
  'PGSSLCERT',
  'PGSSLKEY',
];

/** Settings whose value is a list of paths joined by the platform's delimiter (`:`), as PATH is. */
export const PATH_LIST_SETTINGS: readonly string[] = SETTINGS.filter((s) => s.list).map((s) => s.env);

/**
 * Every environment variable recall reads as a path or a list of paths: the settings table's path
 * settings, then the other path variables. Derived, so a path setting added to the table is made
 * absolute for the recall server without anyone remembering this file.
 */
export const PATH_SETTINGS: readonly string[] = [
  ...SETTINGS.filter((s) => s.path || s.list).map((s) => s.env),
  ...OTHER_PATH_VARIABLES.filter((v) => !SETTINGS.some((s) => s.env === v)),
];

/** One path made absolute against `cwd`, unless it is absolute, or relative to home or the state dir (left for the config reader). */
function absolute(value: string, cwd: string): string {
  const t = value.trim();
  if (path.isAbsolute(t) || t === '~' || t.startsWith('~/') || t.startsWith('$REFLECT_STATE_DIR/')) return value;
  return path.resolve(cwd, t);
}

/**
 * `env` with every relative path setting made absolute against `cwd`. Values that start with `~/`
 * or `$REFLECT_STATE_DIR/` are left for the config reader (they are relative to home or the state
 * dir, not to the working directory); empty values are left as they are (they mean "unset").
 */
export function absolutePathSettings(env: Env, cwd: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const name of PATH_SETTINGS) {
    const v = env[name];
    if (v === undefined || v.trim() === '') continue;
    out[name] = PATH_LIST_SETTINGS.includes(name)
      ? v
          .split(path.delimiter)
          .map((p) => (p.trim() === '' ? p : absolute(p, cwd)))
          .join(path.delimiter)
      : absolute(v, cwd);
  }
  // The state dir is the exception: a relative one is taken from HOME in every process (see
  // state-dir.ts), so a hook answered by the recall server keeps its logs where an in-process one
  // does, never in the project the harness runs in.
  const state = env['REFLECT_STATE_DIR']?.trim();
  const home = out['HOME']?.trim();
  if (state && !path.isAbsolute(state) && !state.startsWith('~') && home) out['REFLECT_STATE_DIR'] = resolveStateDir(home, state);
  return out;
}
