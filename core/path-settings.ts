/**
 * Settings whose value is a path. A relative one means "relative to where the command was run":
 * a one-shot process resolves it against its own working directory, but the recall server runs
 * with a working directory of its own, so the thin client (and the server again, for values that
 * come from recall.toml) makes them absolute against the caller's directory before they are used.
 * Without that, `REFLECT_MODELS_DIR=models` would name the caller's folder in one process and the
 * server's in the other, and the models would silently go missing. `REFLECT_STATE_DIR` alone is
 * taken from HOME, as every process takes it.
 */
import path from 'node:path';
import { resolveStateDir } from './state-dir.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Every environment variable recall reads as a path (the path settings of core/settings*.ts, the
 * config file's own location, and the harness variables the hooks read).
 */
export const PATH_SETTINGS: readonly string[] = [
  'REFLECT_STATE_DIR',
  'GLOBAL_LEARNINGS_PATH',
  'RECALL_LEARNINGS_ROOT',
  'REFLECT_MODES_DIR',
  'REFLECT_MODELS_DIR',
  'REFLECT_DB_PATH',
  'REFLECT_SKILLS_DIR',
  'REFLECT_METRICS_PATH',
  'RECALL_FLEET_LEDGER',
  'RECALL_CONFIG',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_CONFIG_DIR',
  'XDG_CONFIG_HOME',
  'HOME',
];

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
    const t = v.trim();
    if (path.isAbsolute(t) || t === '~' || t.startsWith('~/') || t.startsWith('$REFLECT_STATE_DIR/')) continue;
    out[name] = path.resolve(cwd, t);
  }
  // The state dir is the exception: a relative one is taken from HOME in every process (see
  // state-dir.ts), so a hook answered by the recall server keeps its logs where an in-process one
  // does, never in the project the harness runs in.
  const state = env['REFLECT_STATE_DIR']?.trim();
  const home = out['HOME']?.trim();
  if (state && !path.isAbsolute(state) && !state.startsWith('~') && home) out['REFLECT_STATE_DIR'] = resolveStateDir(home, state);
  return out;
}
