/**
 * The team store's versioned schema: the migrations that create and extend it, reading its
 * version, and `recall team init`'s migrate (with pgvector when the server offers it, and grants).
 */
import { TeamError, causeCode } from './settings.js';
import { ident, inTransaction, teamError, type TeamConnection } from './connection.js';
import { ownRowsOnly, UPDATABLE_COLUMNS } from './schema-v3.js';
import { NOTE_BYTES_CAP, NOTE_BYTES_SQL } from './rows.js';

/** Version of the schema this code writes and reads; `recall team init` migrates older stores. */
export const STORE_SCHEMA_VERSION = 4;
/**
 * Oldest schema this code still reads and writes: version 4 only adds the size cap, which readers
 * apply themselves (rows over it are skipped), so a store whose owner has not migrated it yet keeps
 * working for teammates who upgraded first; \`recall team status\` says it wants \`recall team init\`.
 */
export const OLDEST_USABLE_SCHEMA = 3;

/** The notes table, one row per published revision, with its indexes (first migration). */
const notesTable = (s: string): string => `
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
`;

/**
 * The trigger that keeps published content immutable and sets the server-side fields (author,
 * publish time, who retired a revision and when), so a client cannot claim another's name.
 */
const notesGuard = (s: string): string => `CREATE FUNCTION ${s}.notes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
`;

/** Schema migrations, by the version they bring the store to. Each runs once, in order, in one transaction. */
function migrations(s: string): Record<number, string> {
  return {
    1: notesTable(s) + notesGuard(s),
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
    3: ownRowsOnly(s),
    // A note's content at most the size of a KB note file (1 MiB): fifty 100 MB rows made every
    // teammate's pull die of a heap out-of-memory. Rows published before this migration are exempt
    // (published_at is set by the server and cannot be changed), so the migration neither fails on
    // them nor deletes anyone's data, and their lifecycle can still change (a forget, a newer
    // revision taking the head); readers skip them (sources/team/revisions.ts).
    4: `DO $$ BEGIN
  EXECUTE format('ALTER TABLE ${s}.notes ADD CONSTRAINT notes_size CHECK (${NOTE_BYTES_SQL} <= ${NOTE_BYTES_CAP} OR published_at < %L::timestamptz)', now());
END $$;`,
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
  if (!exists[0]?.ok)
    throw new TeamError('E_TEAM_NO_SCHEMA', `the team store has no schema "${conn.schema}" yet: run \`recall team init\``);
  const rows = await conn.query<{ k: string; v: string }>(`SELECT k, v FROM ${s}.meta`);
  const meta = new Map(rows.map((r) => [r.k, r.v]));
  const version = Number(meta.get('schema_version') ?? 0);
  if (version > STORE_SCHEMA_VERSION) {
    throw NEWER_SCHEMA(version);
  }
  if (version < OLDEST_USABLE_SCHEMA)
    throw new TeamError(
      'E_TEAM_SCHEMA_OLD',
      `the team store's schema is version ${version}: run \`recall team init\` to migrate it to ${STORE_SCHEMA_VERSION}`,
    );
  return { version, storeId: meta.get('store_id') ?? '', pgvector: meta.get('pgvector') === 'on' };
}

export interface MigrateResult extends StoreInfo {
  /** Versions applied by this call (empty when the store was up to date). */
  applied: number[];
  pgvectorNote: string;
}

const NEWER_SCHEMA = (version: number): TeamError =>
  new TeamError(
    'E_TEAM_SCHEMA_NEWER',
    `the team store's schema is version ${version}, newer than this recall understands (${STORE_SCHEMA_VERSION}): upgrade recall`,
  );

/** The schema version recorded in the store (0 when it has none yet); creates the schema then. */
async function currentVersion(conn: TeamConnection, s: string): Promise<number> {
  const hasMeta = (await conn.query<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`${s}.meta`]))[0]?.ok;
  // A teammate without CREATE rights runs init on a store that is already set up: no DDL then.
  if (!hasMeta) await conn.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  if (!hasMeta) return 0;
  return Number((await conn.query<{ v: string }>(`SELECT v FROM ${s}.meta WHERE k = 'schema_version'`))[0]?.v ?? 0);
}

/** Apply the migrations after `version` up to `upTo`; returns the versions applied. */
async function applyMigrations(conn: TeamConnection, s: string, version: number, upTo: number): Promise<number[]> {
  const applied: number[] = [];
  const steps = migrations(s);
  for (let v = version + 1; v <= upTo; v += 1) {
    try {
      await conn.query(steps[v]!);
    } catch (err) {
      if (causeCode(err) === '42501') {
        throw new TeamError(
          'E_TEAM_PRIVILEGE',
          `the store's schema is version ${version} and moving it to ${v} needs the role that owns it: run \`recall team init\` as that role (${(err as Error).message})`,
        );
      }
      throw err;
    }
    await conn.query(`INSERT INTO ${s}.meta (k, v) VALUES ('schema_version', $1) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [
      String(v),
    ]);
    applied.push(v);
  }
  return applied;
}

/** Use pgvector when the server offers it (optional: Debian 12 does not package it; managed offerings usually do). */
async function enablePgvector(conn: TeamConnection, s: string): Promise<string> {
  const meta = await conn.query<{ v: string }>(`SELECT v FROM ${s}.meta WHERE k = 'pgvector'`);
  if (meta[0]?.v === 'on') return 'pgvector: on';
  const avail = (await conn.query<{ ok: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS ok`))[0]
    ?.ok;
  if (!avail) return 'pgvector: not on this server; note vectors are stored as arrays and scored by the client';
  await conn.query('SAVEPOINT pgv');
  try {
    await conn.query('CREATE EXTENSION IF NOT EXISTS vector');
    await conn.query(`ALTER TABLE ${s}.notes ADD COLUMN IF NOT EXISTS embedding_v vector`);
    await conn.query(`INSERT INTO ${s}.meta (k, v) VALUES ('pgvector', 'on') ON CONFLICT (k) DO UPDATE SET v = 'on'`);
    await conn.query('RELEASE SAVEPOINT pgv');
    return 'pgvector: on (note vectors searched on the server)';
  } catch (err) {
    await conn.query('ROLLBACK TO SAVEPOINT pgv');
    return `pgvector: available but not usable (${teamError(err, conn.secrets, 'create extension').message}); note vectors are scored by the client`;
  }
}

/** What teammates' roles need: writers push (insert, and update the lifecycle columns of their own rows), readers pull. */
async function grantRoles(conn: TeamConnection, s: string, grants: { write: string[]; read: string[] }): Promise<void> {
  for (const role of grants.write) {
    await conn.query(`GRANT USAGE ON SCHEMA ${s} TO ${ident(role)}`);
    await conn.query(`GRANT SELECT, INSERT ON ${s}.notes TO ${ident(role)}`);
    await conn.query(`GRANT UPDATE (${UPDATABLE_COLUMNS}) ON ${s}.notes TO ${ident(role)}`);
    await conn.query(`GRANT SELECT ON ${s}.meta TO ${ident(role)}`);
  }
  for (const role of grants.read) {
    await conn.query(`GRANT USAGE ON SCHEMA ${s} TO ${ident(role)}`);
    await conn.query(`GRANT SELECT ON ${s}.notes, ${s}.meta TO ${ident(role)}`);
  }
}

/**
 * Create or migrate the schema (idempotent; concurrent callers serialise on an advisory lock), use
 * pgvector when the server offers it, and grant teammates' roles what push and pull need.
 */
export async function migrate(
  conn: TeamConnection,
  grants: { write: string[]; read: string[] },
  upTo = STORE_SCHEMA_VERSION,
): Promise<MigrateResult> {
  const s = ident(conn.schema);
  const { applied, pgvectorNote } = await inTransaction(conn, async () => {
    await conn.query(`SELECT pg_advisory_xact_lock(hashtext('recall-team-migrate:' || $1))`, [conn.schema]);
    const version = await currentVersion(conn, s);
    if (version > STORE_SCHEMA_VERSION) throw NEWER_SCHEMA(version);
    const applied = await applyMigrations(conn, s, version, upTo);
    const pgvectorNote = await enablePgvector(conn, s);
    await grantRoles(conn, s, grants);
    return { applied, pgvectorNote };
  });
  if (upTo < STORE_SCHEMA_VERSION) return { version: upTo, storeId: '', pgvector: false, applied, pgvectorNote };
  return { ...(await storeInfo(conn)), applied, pgvectorNote };
}
