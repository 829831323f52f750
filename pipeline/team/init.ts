/**
 * `recall team init`: connect, create or migrate the store's schema, and remember the store (its URL
 * without the password) in `<state dir>/team/config.json`.
 */
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { displayUrl, readTeamConfig, writeTeamConfig, type StoreInfo } from '../../sources/team/index.js';
import { setup, withStore, type TeamIo } from './io.js';

export interface InitOptions {
  url?: string;
  schema?: string;
  machine?: string;
  grant: string[];
  grantRead: string[];
  shareAll: string[];
}

export interface InitReport {
  store: string;
  schema: string;
  info: StoreInfo;
  applied: number[];
  pgvector: string;
  passwordNotSaved: boolean;
  config: string;
}

const ROLE_RE = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;

export async function teamInit(opts: InitOptions, io: TeamIo): Promise<InitReport> {
  const env = { ...io.env };
  if (opts.url) env['RECALL_TEAM_URL'] = opts.url;
  if (opts.schema) env['RECALL_TEAM_SCHEMA'] = opts.schema;
  const { settings } = setup({ ...io, env });
  if (opts.schema && settings.schema !== opts.schema)
    throw new UsageError(`--schema must be a plain lower-case identifier (got ${JSON.stringify(opts.schema)})`);
  for (const r of [...opts.grant, ...opts.grantRead])
    if (!ROLE_RE.test(r)) throw new UsageError(`--grant: ${JSON.stringify(r)} is not a role name`);
  if (!settings.url) throw new UsageError('no team store given: pass --url postgres://user@host:port/db (or set RECALL_TEAM_URL)');
  const result = await withStore(settings, (conn, store) => store.migrate(conn, { write: opts.grant, read: opts.grantRead }));
  // Remember the store for this machine, without the password (PGPASSWORD or ~/.pgpass give it).
  let saveUrl = settings.url;
  let passwordNotSaved = false;
  try {
    const u = new URL(settings.url);
    if (u.password) {
      u.password = '';
      saveUrl = u.toString();
      passwordNotSaved = true;
    }
  } catch {
    /* not a URL we can rewrite: parse errors were reported by the connection already */
  }
  const file = readTeamConfig(settings.paths);
  const shareAll = [...new Set([...(file.shareAll ?? []), ...opts.shareAll.map((d) => path.resolve(io.cwd, d))])];
  writeTeamConfig(settings.paths, {
    ...file,
    url: saveUrl,
    schema: settings.schema,
    ...(opts.machine ? { machine: opts.machine } : {}),
    ...(shareAll.length ? { shareAll } : {}),
  });
  return {
    store: displayUrl(settings.url, settings.env),
    schema: settings.schema,
    info: result,
    applied: result.applied,
    pgvector: result.pgvectorNote,
    passwordNotSaved,
    config: settings.paths.config,
  };
}
