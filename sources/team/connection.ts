/**
 * Connecting to the team store's PostgreSQL server: client settings from the URL and the standard
 * PG variables, TLS with libpq's meaning of each mode, and errors with the password removed.
 */
import type { Client as PgClient, ClientConfig } from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import tls from 'node:tls';
import { TeamError, redact, secretsOf, type TeamSettings } from './settings.js';

export interface TeamConnection {
  client: PgClient;
  schema: string;
  secrets: string[];
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  /** Drop the connection at once (a timed-out live query); never throws. */
  destroy(): void;
}

/** A TeamError from any failure, password removed, with what we were doing. */
export function teamError(err: unknown, secrets: readonly string[], doing: string): TeamError {
  if (err instanceof TeamError) return new TeamError(err.code, redact(err.message, secrets), err.detail);
  const e = err as { message?: string; code?: string };
  const msg = (e?.message ?? String(err)).split('\n')[0] ?? 'unknown error';
  // The cause's own code (SQLSTATE, errno) is said in the message; the error's code stays one of ours.
  const cause = typeof e?.code === 'string' ? e.code : '';
  return new TeamError('E_TEAM', redact(`${doing}: ${msg}${cause && !msg.includes(cause) ? ` (${cause})` : ''}`, secrets), cause);
}

function readFileOpt(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TeamError('E_TEAM_TLS', `cannot read TLS file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/**
 * The CA bundle the hook command kept from a hook's node (RECALL_EXTRA_CA_CERTS: node starts faster
 * without NODE_EXTRA_CA_CERTS; empty when the user has none), with node's own roots, for a process
 * that started without it: a hook answered in its own process still trusts what the user's
 * NODE_EXTRA_CA_CERTS trusts.
 */
function keptBundle(env: TeamSettings['env']): string[] | undefined {
  const kept = env['RECALL_EXTRA_CA_CERTS'] ?? process.env['RECALL_EXTRA_CA_CERTS'];
  if (!kept || process.env['NODE_EXTRA_CA_CERTS']) return undefined;
  // As node does with a NODE_EXTRA_CA_CERTS it cannot read: go on with its own roots (a server that
  // needed the bundle then fails verification, and says so), not fail before connecting.
  try {
    return [...tls.rootCertificates, fs.readFileSync(kept, 'utf8')];
  } catch {
    return undefined;
  }
}

/** TLS options from PGSSLMODE / PGSSLROOTCERT / PGSSLCERT / PGSSLKEY, with libpq's meaning of each mode. */
function sslFromEnv(env: TeamSettings['env']): ClientConfig['ssl'] {
  const mode = env['PGSSLMODE']?.trim().toLowerCase();
  if (!mode || mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  const root = readFileOpt(env['PGSSLROOTCERT']);
  const ca = root ?? keptBundle(env);
  const cert = readFileOpt(env['PGSSLCERT']);
  const key = readFileOpt(env['PGSSLKEY']);
  const base = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  if (mode === 'verify-full') return { ...base, rejectUnauthorized: true };
  if (mode === 'verify-ca') return { ...base, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  if (mode === 'require' || mode === 'no-verify') return { ...base, rejectUnauthorized: mode === 'require' && root !== undefined };
  throw new TeamError(
    'E_TEAM_TLS',
    `PGSSLMODE=${JSON.stringify(mode)} is not one of disable, allow, prefer, require, verify-ca, verify-full`,
  );
}

/**
 * Client settings: the URL's parts, then the standard PG variables of the environment we were
 * given for what the URL leaves out, then pg's own defaults (~/.pgpass for a missing password).
 */
export async function clientConfig(settings: TeamSettings, connectTimeoutMs: number): Promise<ClientConfig> {
  if (!settings.url)
    throw new TeamError('E_TEAM_NOT_CONFIGURED', 'no team store configured: set RECALL_TEAM_URL or run `recall team init --url URL`');
  const { parse } = await import('pg-connection-string');
  const e = settings.env;
  let u: ReturnType<typeof parse>;
  try {
    u = parse(settings.url, { useLibpqCompat: true });
  } catch (err) {
    throw new TeamError('E_TEAM_URL', redact(`the team store URL cannot be parsed: ${(err as Error).message}`, secretsOf(settings)));
  }
  const user = u.user || e['PGUSER'] || e['USER'] || os.userInfo().username;
  const ssl = u.ssl !== undefined && u.ssl !== null && u.ssl !== '' ? (u.ssl as ClientConfig['ssl']) : sslFromEnv(e);
  const port = Number(u.port || e['PGPORT'] || 5432);
  return {
    host: u.host || e['PGHOST'] || 'localhost',
    port: Number.isInteger(port) ? port : 5432,
    user,
    database: u.database || e['PGDATABASE'] || user,
    ...(u.password || e['PGPASSWORD'] ? { password: u.password || e['PGPASSWORD'] } : {}),
    ssl,
    application_name: e['PGAPPNAME'] || 'recall',
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
  };
}

export async function openStore(settings: TeamSettings, opts: { connectTimeoutMs?: number } = {}): Promise<TeamConnection> {
  const secrets = secretsOf(settings);
  const cfg = await clientConfig(settings, opts.connectTimeoutMs ?? settings.connectTimeoutMs);
  const { default: pg } = await import('pg');
  const client = new pg.Client(cfg);
  // A server that goes away between queries emits 'error' on the client; the failing query reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    destroyClient(client);
    throw teamError(err, secrets, `cannot connect to the team store`);
  }
  return {
    client,
    schema: settings.schema,
    secrets,
    async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      try {
        return (await client.query(sql, params)).rows as T[];
      } catch (err) {
        throw teamError(err, secrets, 'team store query failed');
      }
    },
    async close() {
      try {
        await client.end();
      } catch {
        /* already gone */
      }
    },
    destroy: () => destroyClient(client),
  };
}

function destroyClient(client: PgClient): void {
  try {
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  } catch {
    /* nothing to drop */
  }
  client.end().catch(() => undefined);
}

/** The database role of this session: the name the store records as author of what it publishes. */
export async function sessionRole(conn: TeamConnection): Promise<string> {
  return (await conn.query<{ me: string }>(`SELECT session_user AS me`))[0]!.me;
}

/** A schema name quoted as an SQL identifier. */
export const ident = (schema: string): string => `"${schema.replace(/"/g, '""')}"`;

/** Run `work` inside one transaction (`begin` opens it); rolled back when it throws. */
export async function inTransaction<T>(conn: TeamConnection, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  await conn.query(begin);
  try {
    const out = await work();
    await conn.query('COMMIT');
    return out;
  } catch (err) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
