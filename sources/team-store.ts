/**
 * The team store: a versioned schema in a PostgreSQL database (through the `pg` client) holding
 * every published revision of every shared note, and the SQL that pushes, pulls and searches it.
 *
 * Table `<schema>.notes`, one row per revision, primary key (id, revision):
 * - content: content_hash, title, body, frontmatter (JSONB), created/updated time of the note;
 * - provenance: author (the database role of the session that published it, set by the server, so
 *   a client cannot claim someone else's name), machine and KB it came from, publish time;
 * - lifecycle: `head` (the revision the store keeps as the note's latest, one per id), `state`
 *   current | superseded | forgotten, superseded_by, and who retired it and when (server-set);
 * - search: a weighted tsvector (title A; key insight and tags B; problem, root cause, fix, rule,
 *   symptoms C; body D) under a GIN index; a note vector (real[]) when the publisher had an
 *   embedding model, plus a pgvector column when the server has that extension;
 * - change tracking: `txid`, the id of the transaction that last wrote the row. A pull reads the
 *   rows written by transactions below the oldest transaction still running (everything below that
 *   horizon is final), so an incremental pull never misses a row committed late.
 * A trigger makes published content immutable: only the lifecycle columns can change.
 *
 * Every error that leaves this module is a TeamError whose message has the password removed.
 */
import type { Client as PgClient, ClientConfig } from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import { TeamError, redact, secretsOf, type TeamSettings } from './team-settings.js';
import type { StoreRow } from './team-shard.js';
import { STOPWORDS } from '../core/terms.js';

/** Version of the schema this code writes and reads; `recall team init` migrates older stores. */
export const STORE_SCHEMA_VERSION = 2;

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
  if (err instanceof TeamError) return new TeamError(err.code, redact(err.message, secrets));
  const e = err as { message?: string; code?: string };
  const msg = (e?.message ?? String(err)).split('\n')[0] ?? 'unknown error';
  const code = typeof e?.code === 'string' ? e.code : 'E_TEAM';
  return new TeamError(code, redact(`${doing}: ${msg}${code !== 'E_TEAM' && !msg.includes(code) ? ` (${code})` : ''}`, secrets));
}

function readFileOpt(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TeamError('E_TEAM_TLS', `cannot read TLS file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** TLS options from PGSSLMODE / PGSSLROOTCERT / PGSSLCERT / PGSSLKEY, with libpq's meaning of each mode. */
function sslFromEnv(env: TeamSettings['env']): ClientConfig['ssl'] {
  const mode = env['PGSSLMODE']?.trim().toLowerCase();
  if (!mode || mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  const ca = readFileOpt(env['PGSSLROOTCERT']);
  const cert = readFileOpt(env['PGSSLCERT']);
  const key = readFileOpt(env['PGSSLKEY']);
  const base = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  if (mode === 'verify-full') return { ...base, rejectUnauthorized: true };
  if (mode === 'verify-ca') return { ...base, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  if (mode === 'require' || mode === 'no-verify') return { ...base, rejectUnauthorized: mode === 'require' && ca !== undefined };
  throw new TeamError('E_TEAM_TLS', `PGSSLMODE=${JSON.stringify(mode)} is not one of disable, allow, prefer, require, verify-ca, verify-full`);
}

/**
 * Client settings: the URL's parts, then the standard PG variables of the environment we were
 * given for what the URL leaves out, then pg's own defaults (~/.pgpass for a missing password).
 */
export async function clientConfig(settings: TeamSettings, connectTimeoutMs: number): Promise<ClientConfig> {
  if (!settings.url) throw new TeamError('E_TEAM_NOT_CONFIGURED', 'no team store configured: set RECALL_TEAM_URL or run `recall team init --url URL`');
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

const ident = (schema: string): string => `"${schema.replace(/"/g, '""')}"`;

/** Schema migrations, by the version they bring the store to. Each runs once, in order, in one transaction. */
function migrations(s: string): Record<number, string> {
  return {
    1: `
CREATE TABLE IF NOT EXISTS ${s}.meta (k text PRIMARY KEY, v text NOT NULL);
CREATE TABLE ${s}.notes (
  id text NOT NULL CHECK (length(id) BETWEEN 1 AND 512),
  revision integer NOT NULL CHECK (revision >= 1),
  content_hash text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  frontmatter jsonb NOT NULL,
  author text NOT NULL DEFAULT session_user,
  machine text NOT NULL,
  kb text NOT NULL,
  created_at timestamptz,
  updated_at timestamptz NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  head boolean NOT NULL,
  state text NOT NULL DEFAULT 'current' CHECK (state IN ('current', 'superseded', 'forgotten')),
  superseded_by text,
  retired_by text,
  retired_at timestamptz,
  embed_model text,
  embedding real[],
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, title), 'A') ||
    setweight(to_tsvector('english'::regconfig, coalesce(frontmatter->>'key_insight', '') || ' ' || coalesce(frontmatter->>'tags', '')), 'B') ||
    setweight(to_tsvector('english'::regconfig,
      coalesce(frontmatter->>'problem', '') || ' ' || coalesce(frontmatter->>'root_cause', '') || ' ' ||
      coalesce(frontmatter->>'fix', '') || ' ' || coalesce(frontmatter->>'rule', '') || ' ' || coalesce(frontmatter->>'symptoms', '')), 'C') ||
    setweight(to_tsvector('english'::regconfig, body), 'D')
  ) STORED,
  PRIMARY KEY (id, revision)
);
CREATE UNIQUE INDEX notes_one_head ON ${s}.notes (id) WHERE head;
CREATE INDEX notes_changes ON ${s}.notes (txid, id, revision);
CREATE INDEX notes_tsv ON ${s}.notes USING gin (tsv);
CREATE FUNCTION ${s}.notes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.txid := pg_current_xact_id();
  IF TG_OP = 'INSERT' THEN
    NEW.author := session_user;
    NEW.published_at := now();
    IF NEW.state <> 'current' OR NOT NEW.head THEN
      NEW.retired_by := session_user; NEW.retired_at := now();
    ELSE
      NEW.retired_by := NULL; NEW.retired_at := NULL;
    END IF;
    RETURN NEW;
  END IF;
  IF (NEW.id, NEW.revision, NEW.content_hash, NEW.title, NEW.body, NEW.frontmatter, NEW.author, NEW.machine, NEW.kb,
      NEW.created_at, NEW.updated_at, NEW.published_at)
     IS DISTINCT FROM
     (OLD.id, OLD.revision, OLD.content_hash, OLD.title, OLD.body, OLD.frontmatter, OLD.author, OLD.machine, OLD.kb,
      OLD.created_at, OLD.updated_at, OLD.published_at) THEN
    RAISE EXCEPTION 'a published revision cannot be changed; publish a new revision instead' USING ERRCODE = 'check_violation';
  END IF;
  IF (NEW.head, NEW.state, NEW.superseded_by) IS DISTINCT FROM (OLD.head, OLD.state, OLD.superseded_by) THEN
    NEW.retired_by := session_user; NEW.retired_at := now();
  ELSE
    NEW.retired_by := OLD.retired_by; NEW.retired_at := OLD.retired_at;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER notes_guard BEFORE INSERT OR UPDATE ON ${s}.notes FOR EACH ROW EXECUTE FUNCTION ${s}.notes_guard();
INSERT INTO ${s}.meta (k, v) VALUES ('store_id', gen_random_uuid()::text), ('created_at', now()::text) ON CONFLICT (k) DO NOTHING;
`,
    // A small vector of the heading fields (title; key insight and tags) so the live search can rank
    // the notes a query names in their heading without ranking every note that uses a common word
    // somewhere in its body (measured at 100k notes: 1.35 s → 0.1 s for a four-word query).
    2: `
ALTER TABLE ${s}.notes ADD COLUMN tsv_head tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, title), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce(frontmatter->>'key_insight', '') || ' ' || coalesce(frontmatter->>'tags', '')), 'B')
) STORED;
CREATE INDEX notes_tsv_head ON ${s}.notes USING gin (tsv_head);
`,
  };
}

export interface StoreInfo {
  version: number;
  storeId: string;
  pgvector: boolean;
}

/** Schema version, store id and pgvector flag; a missing or newer schema is a clear error. */
export async function storeInfo(conn: TeamConnection): Promise<StoreInfo> {
  const s = ident(conn.schema);
  const exists = await conn.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`${s}.meta`]);
  if (!exists[0]?.ok) throw new TeamError('E_TEAM_NO_SCHEMA', `the team store has no schema "${conn.schema}" yet: run \`recall team init\``);
  const rows = await conn.query<{ k: string; v: string }>(`SELECT k, v FROM ${s}.meta`);
  const meta = new Map(rows.map((r) => [r.k, r.v]));
  const version = Number(meta.get('schema_version') ?? 0);
  if (version > STORE_SCHEMA_VERSION) {
    throw new TeamError('E_TEAM_SCHEMA_NEWER', `the team store's schema is version ${version}, newer than this recall understands (${STORE_SCHEMA_VERSION}): upgrade recall`);
  }
  if (version < STORE_SCHEMA_VERSION) throw new TeamError('E_TEAM_SCHEMA_OLD', `the team store's schema is version ${version}: run \`recall team init\` to migrate it to ${STORE_SCHEMA_VERSION}`);
  return { version, storeId: meta.get('store_id') ?? '', pgvector: meta.get('pgvector') === 'on' };
}

export interface MigrateResult extends StoreInfo {
  /** Versions applied by this call (empty when the store was up to date). */
  applied: number[];
  pgvectorNote: string;
}

/**
 * Create or migrate the schema (idempotent; concurrent callers serialise on an advisory lock), use
 * pgvector when the server offers it, and grant teammates' roles what push and pull need.
 */
export async function migrate(conn: TeamConnection, grants: { write: string[]; read: string[] }, upTo = STORE_SCHEMA_VERSION): Promise<MigrateResult> {
  const s = ident(conn.schema);
  const applied: number[] = [];
  let pgvectorNote: string;
  await conn.query('BEGIN');
  try {
    await conn.query(`SELECT pg_advisory_xact_lock(hashtext('recall-team-migrate:' || $1))`, [conn.schema]);
    const hasMeta = (await conn.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`${s}.meta`]))[0]?.ok;
    // A teammate without CREATE rights runs init on a store that is already set up: no DDL then.
    if (!hasMeta) await conn.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    let version = 0;
    if (hasMeta) version = Number((await conn.query<{ v: string }>(`SELECT v FROM ${s}.meta WHERE k = 'schema_version'`))[0]?.v ?? 0);
    if (version > STORE_SCHEMA_VERSION) {
      throw new TeamError('E_TEAM_SCHEMA_NEWER', `the team store's schema is version ${version}, newer than this recall understands (${STORE_SCHEMA_VERSION}): upgrade recall`);
    }
    const steps = migrations(s);
    for (let v = version + 1; v <= upTo; v += 1) {
      try {
        await conn.query(steps[v]!);
      } catch (err) {
        if ((err as { code?: string }).code === '42501') {
          throw new TeamError('E_TEAM_PRIVILEGE', `the store's schema is version ${version} and moving it to ${v} needs the role that owns it: run \`recall team init\` as that role (${(err as Error).message})`);
        }
        throw err;
      }
      await conn.query(`INSERT INTO ${s}.meta (k, v) VALUES ('schema_version', $1) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [String(v)]);
      applied.push(v);
    }
    // pgvector: optional. Debian 12 does not package it; managed offerings usually do.
    const meta = await conn.query<{ v: string }>(`SELECT v FROM ${s}.meta WHERE k = 'pgvector'`);
    if (meta[0]?.v !== 'on') {
      const avail = (await conn.query<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS ok`))[0]?.ok;
      if (avail) {
        await conn.query('SAVEPOINT pgv');
        try {
          await conn.query('CREATE EXTENSION IF NOT EXISTS vector');
          await conn.query(`ALTER TABLE ${s}.notes ADD COLUMN IF NOT EXISTS embedding_v vector`);
          await conn.query(`INSERT INTO ${s}.meta (k, v) VALUES ('pgvector', 'on') ON CONFLICT (k) DO UPDATE SET v = 'on'`);
          await conn.query('RELEASE SAVEPOINT pgv');
          pgvectorNote = 'pgvector: on (note vectors searched on the server)';
        } catch (err) {
          await conn.query('ROLLBACK TO SAVEPOINT pgv');
          pgvectorNote = `pgvector: available but not usable (${teamError(err, conn.secrets, 'create extension').message}); note vectors are scored by the client`;
        }
      } else {
        pgvectorNote = 'pgvector: not on this server; note vectors are stored as arrays and scored by the client';
      }
    } else {
      pgvectorNote = 'pgvector: on';
    }
    for (const role of grants.write) {
      await conn.query(`GRANT USAGE ON SCHEMA ${s} TO ${ident(role)}`);
      await conn.query(`GRANT SELECT, INSERT, UPDATE ON ${s}.notes TO ${ident(role)}`);
      await conn.query(`GRANT SELECT ON ${s}.meta TO ${ident(role)}`);
    }
    for (const role of grants.read) {
      await conn.query(`GRANT USAGE ON SCHEMA ${s} TO ${ident(role)}`);
      await conn.query(`GRANT SELECT ON ${s}.notes, ${s}.meta TO ${ident(role)}`);
    }
    await conn.query('COMMIT');
  } catch (err) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  if (upTo < STORE_SCHEMA_VERSION) return { version: upTo, storeId: '', pgvector: false, applied, pgvectorNote };
  return { ...(await storeInfo(conn)), applied, pgvectorNote };
}

// ---------------------------------------------------------------------------------------------
// Push

/** A note a KB publishes. */
export interface PushItem {
  id: string;
  contentHash: string;
  title: string;
  body: string;
  frontmatter: Record<string, unknown>;
  createdAt: string | null;
  updatedAt: string;
  embedModel: string | null;
  embedding: number[] | null;
}

/** A note a KB has retired (superseded, archived, forgotten, or no longer shared). */
export interface RetireItem {
  id: string;
  state: 'superseded' | 'forgotten';
  supersededBy: string | null;
}

export interface PushCounts {
  published: number;
  unchanged: number;
  /** Our edit was older than the store's: kept as a superseded revision. */
  keptAsRevision: number;
  /** Our edit replaced a newer-published revision from another machine or KB (older by updated time). */
  replacedOther: number;
  retired: number;
}

interface ExistingRow {
  id: string;
  revision: number;
  content_hash: string;
  head: boolean;
  state: string;
  updated_at: Date;
  machine: string;
  kb: string;
}

/** (updated time, content hash) ordering: the later edit wins; equal times fall back to the hash, so every machine agrees. */
function newer(aMs: number, aHash: string, bMs: number, bHash: string): boolean {
  return aMs !== bMs ? aMs > bMs : aHash > bHash;
}

/**
 * Publish one batch in one transaction. Writers take a lock that excludes other writers (not
 * readers), so two machines pushing the same id cannot both make it the head.
 */
export async function pushBatch(conn: TeamConnection, origin: { machine: string; kb: string }, items: PushItem[], retires: RetireItem[], pgvector: boolean): Promise<PushCounts> {
  const s = ident(conn.schema);
  const counts: PushCounts = { published: 0, unchanged: 0, keptAsRevision: 0, replacedOther: 0, retired: 0 };
  if (items.length === 0 && retires.length === 0) return counts;
  const ids = [...new Set([...items.map((i) => i.id), ...retires.map((r) => r.id)])];
  await conn.query('BEGIN');
  try {
    await conn.query(`LOCK TABLE ${s}.notes IN SHARE ROW EXCLUSIVE MODE`);
    const rows = await conn.query<ExistingRow>(
      `SELECT id, revision, content_hash, head, state, updated_at, machine, kb FROM ${s}.notes WHERE id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map<string, ExistingRow[]>();
    for (const r of rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);

    const ins: { item: PushItem; revision: number; head: boolean; state: string; supersededBy: string | null }[] = [];
    const upd: { id: string; revision: number; head: boolean; state: string; supersededBy: string | null }[] = [];
    for (const item of items) {
      const existing = byId.get(item.id) ?? [];
      const same = existing.find((r) => r.content_hash === item.contentHash);
      if (same) {
        // Shared again after a retirement, unchanged: the same revision becomes current again.
        if (same.head && same.state !== 'current') {
          upd.push({ id: same.id, revision: same.revision, head: true, state: 'current', supersededBy: null });
          counts.published += 1;
        } else {
          counts.unchanged += 1;
        }
        continue;
      }
      const head = existing.find((r) => r.head);
      const revision = existing.reduce((m, r) => Math.max(m, r.revision), 0) + 1;
      const ms = Date.parse(item.updatedAt);
      if (!head) {
        ins.push({ item, revision, head: true, state: 'current', supersededBy: null });
      } else if (newer(ms, item.contentHash, head.updated_at.getTime(), head.content_hash)) {
        upd.push({ id: head.id, revision: head.revision, head: false, state: 'superseded', supersededBy: item.id });
        ins.push({ item, revision, head: true, state: 'current', supersededBy: null });
        if (head.machine !== origin.machine || head.kb !== origin.kb) counts.replacedOther += 1;
      } else {
        // An older edit than the store's latest: never dropped, kept as a superseded revision.
        ins.push({ item, revision, head: false, state: 'superseded', supersededBy: item.id });
        counts.keptAsRevision += 1;
      }
      counts.published += 1;
    }
    const pushedIds = new Set(ins.filter((i) => i.head).map((i) => i.item.id));
    for (const r of retires) {
      if (pushedIds.has(r.id)) continue;
      const head = (byId.get(r.id) ?? []).find((x) => x.head);
      if (!head || head.state === r.state || head.state === 'forgotten') continue;
      upd.push({ id: head.id, revision: head.revision, head: true, state: r.state, supersededBy: r.supersededBy });
      counts.retired += 1;
    }
    if (upd.length) {
      await conn.query(
        `UPDATE ${s}.notes n SET head = u.head, state = u.state, superseded_by = u.sb
         FROM unnest($1::text[], $2::int[], $3::bool[], $4::text[], $5::text[]) AS u(id, rev, head, state, sb)
         WHERE n.id = u.id AND n.revision = u.rev`,
        [upd.map((u) => u.id), upd.map((u) => u.revision), upd.map((u) => u.head), upd.map((u) => u.state), upd.map((u) => u.supersededBy)],
      );
    }
    if (ins.length) {
      const vec = (i: PushItem): string | null => (i.embedding ? `{${i.embedding.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}}` : null);
      await conn.query(
        `INSERT INTO ${s}.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, created_at, updated_at,
                                 head, state, superseded_by, embed_model, embedding${pgvector ? ', embedding_v' : ''})
         SELECT u.id, u.rev, u.hash, u.title, u.body, u.fm::jsonb, $14, $15, u.created::timestamptz, u.updated::timestamptz,
                u.head, u.state, u.sb, u.model, u.vec::real[]${pgvector ? ', u.vec::real[]::vector' : ''}
         FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::bool[], $10::text[], $11::text[], $12::text[], $13::text[])
              AS u(id, rev, hash, title, body, fm, created, updated, head, state, sb, model, vec)`,
        [
          ins.map((i) => i.item.id),
          ins.map((i) => i.revision),
          ins.map((i) => i.item.contentHash),
          ins.map((i) => i.item.title),
          ins.map((i) => i.item.body),
          ins.map((i) => JSON.stringify(i.item.frontmatter)),
          ins.map((i) => i.item.createdAt),
          ins.map((i) => i.item.updatedAt),
          ins.map((i) => i.head),
          ins.map((i) => i.state),
          ins.map((i) => i.supersededBy),
          ins.map((i) => (i.item.embedding ? i.item.embedModel : null)),
          ins.map((i) => vec(i.item)),
          origin.machine,
          origin.kb,
        ],
      );
    }
    await conn.query('COMMIT');
  } catch (err) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  return counts;
}

/** Current head revisions of this origin's notes in the store (what a push compares against to find withdrawn notes). */
export async function headsFrom(conn: TeamConnection, origin: { machine: string; kb: string }): Promise<Map<string, string>> {
  const s = ident(conn.schema);
  const rows = await conn.query<{ id: string; state: string }>(`SELECT id, state FROM ${s}.notes WHERE head AND machine = $1 AND kb = $2`, [origin.machine, origin.kb]);
  return new Map(rows.map((r) => [r.id, r.state]));
}

// ---------------------------------------------------------------------------------------------
// Pull

/** Position of an incremental pull: the last (txid, id, revision) applied. */
export interface PullCursor {
  txid: string;
  id: string;
  revision: number;
}

export const START_CURSOR: PullCursor = { txid: '0', id: '', revision: 0 };

const ROW_COLS = `id, revision, content_hash, title, body, frontmatter, author, machine, kb, updated_at, published_at, head, state, superseded_by, retired_by`;

interface RawRow {
  id: string;
  revision: number;
  content_hash: string;
  title: string;
  body: string;
  frontmatter: Record<string, unknown>;
  author: string;
  machine: string;
  kb: string;
  updated_at: Date;
  published_at: Date;
  head: boolean;
  state: StoreRow['state'];
  superseded_by: string | null;
  retired_by: string | null;
}

function toStoreRow(r: RawRow): StoreRow {
  return {
    id: r.id,
    revision: r.revision,
    contentHash: r.content_hash,
    title: r.title,
    body: r.body,
    frontmatter: r.frontmatter && typeof r.frontmatter === 'object' ? r.frontmatter : {},
    author: r.author,
    machine: r.machine,
    kb: r.kb,
    updatedAt: new Date(r.updated_at).toISOString(),
    publishedAt: new Date(r.published_at).toISOString(),
    head: r.head,
    state: r.state,
    supersededBy: r.superseded_by,
    retiredBy: r.retired_by,
  };
}

export interface PullPage {
  /** Every revision of each note changed in this page, by id. */
  notes: Map<string, StoreRow[]>;
  /** Cursor after this page. */
  cursor: PullCursor;
  rows: number;
}

/**
 * Read what changed since `cursor`, one page at a time, in one read-only snapshot. `onPage` applies
 * a page locally; the cursor it is handed is safe to save once that page is applied. Resolves with
 * the cursor at the end (the horizon: everything below it has been read).
 */
export async function pullChanges(conn: TeamConnection, cursor: PullCursor, pageSize: number, onPage: (page: PullPage) => Promise<void> | void): Promise<PullCursor> {
  const s = ident(conn.schema);
  await conn.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const [h] = await conn.query<{ h: string; behind: boolean }>(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS h, pg_snapshot_xmin(pg_current_snapshot()) < $1::xid8 AS behind`,
      [cursor.txid],
    );
    const horizon = h!.h;
    // A store restored from a backup counts transactions from an earlier point than our position:
    // positions are meaningless then, so read everything again.
    let at = h!.behind ? START_CURSOR : cursor;
    for (;;) {
      const changed = await conn.query<{ txid: string; id: string; revision: number }>(
        `SELECT txid::text AS txid, id, revision FROM ${s}.notes
         WHERE (txid, id, revision) > ($1::xid8, $2::text, $3::int) AND txid < $4::xid8
         ORDER BY txid, id, revision LIMIT $5`,
        [at.txid, at.id, at.revision, horizon, pageSize],
      );
      if (changed.length === 0) break;
      const ids = [...new Set(changed.map((c) => c.id))];
      const rows = await conn.query<RawRow>(`SELECT ${ROW_COLS} FROM ${s}.notes WHERE id = ANY($1::text[])`, [ids]);
      const notes = new Map<string, StoreRow[]>(ids.map((id) => [id, []]));
      for (const r of rows) notes.get(r.id)?.push(toStoreRow(r));
      const last = changed[changed.length - 1]!;
      at = { txid: last.txid, id: last.id, revision: last.revision };
      await onPage({ notes, cursor: at, rows: changed.length });
      if (changed.length < pageSize) break;
    }
    await conn.query('COMMIT');
    // Everything written below the horizon has been read: the next pull starts there.
    return { txid: horizon, id: '', revision: 0 };
  } catch (err) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Live search and status

/**
 * Words of a query as an OR full-text query (a prompt-shaped query rarely has every word in one
 * note). Only letters and digits reach the query syntax; stopwords dropped, at most 32 words.
 */
export function orTsQuery(query: string): string {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].filter((w) => w.length >= 2 && !STOPWORDS.has(w)).slice(0, 32);
  return words.map((w) => w.slice(0, 64)).join(' | ');
}

/** Candidates read from the store by full text before vectors re-rank them (client-side scoring). */
const VECTOR_POOL = 100;
/** Candidates each full-text stage keeps before the final ranking on the whole text. */
const TEXT_CANDIDATES = 200;

export interface StoreHit {
  row: StoreRow;
  /** Higher is better: ts_rank_cd alone, or a fused full-text + vector score when a query vector was given. */
  score: number;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Latest revisions matching the query, best first, from other machines. Full text (ts_rank_cd,
 * length-normalised) always; with a query vector, note vectors of the same model also rank: by
 * pgvector's cosine distance on the server when it has the extension (which also finds notes
 * sharing no word with the query), else by cosine in the client over the full-text candidates. The
 * score is the sum of the two signals, each in 0..1 (text rank over the best one; cosine, floored
 * at 0), so the vector decides between notes the words rank alike.
 */
export async function searchStore(
  conn: TeamConnection,
  query: string,
  limit: number,
  notMachine: string,
  vector: { model: string; query: number[]; pgvector: boolean } | null = null,
): Promise<StoreHit[]> {
  const q = orTsQuery(query);
  const s = ident(conn.schema);
  const pool = vector ? Math.max(limit, VECTOR_POOL) : limit;
  // Candidates: notes whose heading (title, key insight, tags) holds any query word, ranked on that
  // small vector; only when those are too few, also notes whose whole text holds every query word.
  // Then the candidates are ranked on the whole text. Ranking every note that merely uses a common
  // query word in its body is what makes an OR search slow on a large store.
  const text = q
    ? await conn.query<RawRow & { rank: number; vec: number[] | null }>(
        `WITH q AS (SELECT to_tsquery('english', $1) AS o, to_tsquery('english', $5) AS a),
         heading AS MATERIALIZED (
           SELECT n.id, n.revision FROM ${s}.notes n, q WHERE n.head AND n.tsv_head @@ q.o AND n.machine <> $3
           ORDER BY ts_rank_cd(n.tsv_head, q.o, 1) DESC LIMIT $7),
         allwords AS (
           SELECT n.id, n.revision FROM ${s}.notes n, q WHERE (SELECT count(*) FROM heading) < $2 AND n.head AND n.tsv @@ q.a AND n.machine <> $3
           ORDER BY ts_rank_cd(n.tsv, q.a, 1) DESC LIMIT $7),
         cand AS (SELECT * FROM heading UNION SELECT * FROM allwords)
         SELECT ${ROW_COLS.split(', ').map((c) => `n.${c}`).join(', ')}, ts_rank_cd(n.tsv, q.o, 1) AS rank,
                CASE WHEN n.embed_model = $4 THEN n.embedding END AS vec
         FROM ${s}.notes n JOIN cand USING (id, revision), q
         ORDER BY rank DESC, n.id LIMIT $6`,
        [q, limit, notMachine, vector?.model ?? null, q.split(' | ').join(' & '), pool, Math.max(pool, TEXT_CANDIDATES)],
      )
    : [];
  if (!vector) return text.slice(0, limit).map((r) => ({ row: toStoreRow(r), score: Number(r.rank) }));

  let byVector: { raw: RawRow; sim: number }[];
  if (vector.pgvector) {
    const lit = `[${vector.query.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
    byVector = (
      await conn.query<RawRow & { sim: number }>(
        `SELECT ${ROW_COLS}, 1 - (embedding_v <=> $1::vector) AS sim FROM ${s}.notes
         WHERE head AND embed_model = $2 AND machine <> $3 AND embedding_v IS NOT NULL
         ORDER BY embedding_v <=> $1::vector LIMIT $4`,
        [lit, vector.model, notMachine, pool],
      )
    ).map((r) => ({ raw: r, sim: Number(r.sim) }));
  } else {
    byVector = text.filter((r) => r.vec).map((r) => ({ raw: r, sim: cosine(vector.query, r.vec!) }));
    byVector.sort((a, b) => b.sim - a.sim);
  }
  // Each signal in 0..1 (text rank over the best text rank, cosine similarity floored at 0), summed.
  const best = text.reduce((m, r) => Math.max(m, Number(r.rank)), 0);
  const fused = new Map<string, { raw: RawRow; score: number }>();
  const add = (raw: RawRow, part: number): void => {
    const cur = fused.get(raw.id) ?? { raw, score: 0 };
    cur.score += part;
    fused.set(raw.id, cur);
  };
  for (const r of text) add(r, best > 0 ? Number(r.rank) / best : 0);
  for (const v of byVector) add(v.raw, Math.max(0, v.sim));
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || (a.raw.id < b.raw.id ? -1 : 1))
    .slice(0, limit)
    .map((f) => ({ row: toStoreRow(f.raw), score: f.score }));
}

export interface StoreCounts {
  notes: number;
  current: number;
  superseded: number;
  forgotten: number;
  revisions: number;
  /** Revisions that lost a conflict or were replaced by a newer edit. */
  olderRevisions: number;
  authors: Record<string, number>;
  withVectors: number;
}

export async function storeCounts(conn: TeamConnection): Promise<StoreCounts> {
  const s = ident(conn.schema);
  const [c] = await conn.query<Record<string, string>>(
    `SELECT count(*) FILTER (WHERE head) AS notes,
            count(*) FILTER (WHERE head AND state = 'current') AS current,
            count(*) FILTER (WHERE head AND state = 'superseded') AS superseded,
            count(*) FILTER (WHERE head AND state = 'forgotten') AS forgotten,
            count(*) AS revisions,
            count(*) FILTER (WHERE NOT head) AS older,
            count(*) FILTER (WHERE head AND embedding IS NOT NULL) AS vectors
     FROM ${s}.notes`,
  );
  const authors = await conn.query<{ author: string; n: string }>(`SELECT author, count(*) AS n FROM ${s}.notes WHERE head AND state = 'current' GROUP BY author ORDER BY author`);
  return {
    notes: Number(c?.['notes'] ?? 0),
    current: Number(c?.['current'] ?? 0),
    superseded: Number(c?.['superseded'] ?? 0),
    forgotten: Number(c?.['forgotten'] ?? 0),
    revisions: Number(c?.['revisions'] ?? 0),
    olderRevisions: Number(c?.['older'] ?? 0),
    withVectors: Number(c?.['vectors'] ?? 0),
    authors: Object.fromEntries(authors.map((a) => [a.author, Number(a.n)])),
  };
}

/** Every revision of one note, newest first (`recall team history ID`). */
export async function noteHistory(conn: TeamConnection, id: string): Promise<StoreRow[]> {
  const s = ident(conn.schema);
  const rows = await conn.query<RawRow>(`SELECT ${ROW_COLS} FROM ${s}.notes WHERE id = $1 ORDER BY revision DESC`, [id]);
  return rows.map(toStoreRow);
}
