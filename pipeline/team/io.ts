/**
 * What the team commands share: their I/O, the settings they read, and a connection to the store
 * opened for one job and always closed (errors come back with the password redacted).
 */
import { loadConfig, type RecallConfig } from '../config/index.js';
import { loadTeamSettings, type Env, type TeamSettings, type TeamConnection } from '../../sources/team/index.js';

export interface TeamIo {
  env: Env;
  cwd: string;
  /** Progress and diagnostics (stderr). */
  warn: (line: string) => void;
  progress?: (line: string) => void;
  now?: () => number;
}

/** Notes per push transaction (a few MB of SQL parameters at most). */
export const PUSH_BATCH = 500;
/** Changed rows read per pull page; the pull position is saved after each page. */
export const PULL_PAGE = 1000;

export function setup(io: TeamIo): { config: RecallConfig; settings: TeamSettings } {
  const config = loadConfig(io.env);
  const settings = loadTeamSettings(io.env, config.stateDir);
  for (const w of settings.warnings) io.warn(`recall: ${w}`);
  return { config, settings };
}

export async function withStore<T>(
  settings: TeamSettings,
  fn: (conn: TeamConnection, store: typeof import('../../sources/team/store.js')) => Promise<T>,
  opts: { connectTimeoutMs?: number } = {},
): Promise<T> {
  const store = await import('../../sources/team/store.js');
  const conn = await store.openStore(settings, opts);
  try {
    return await fn(conn, store);
  } catch (err) {
    throw store.teamError(err, conn.secrets, 'team store');
  } finally {
    await conn.close();
  }
}

export const nowIso = (io: TeamIo): string => new Date((io.now ?? Date.now)()).toISOString();
