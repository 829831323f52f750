/**
 * Settings of the team store (a PostgreSQL database several machines share) and the local files
 * that go with it. No network and no `pg` here: a plain recall reads these settings to decide
 * whether the live team arm runs and where the pulled shard lives.
 *
 * Where settings come from, first match wins: the environment (RECALL_TEAM_URL, RECALL_TEAM_SCHEMA,
 * RECALL_TEAM_MACHINE, RECALL_TEAM_SHARE), then `<state dir>/team/config.json` (written by
 * `recall team init`), then defaults. Whatever the URL leaves out comes from the standard PG
 * variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT, PGSSLCERT,
 * PGSSLKEY, PGAPPNAME) and ~/.pgpass, as with psql.
 *
 * The password is never written to the config file and never shown: `displayUrl` drops it, and
 * `redact` removes it (and any URL userinfo) from every message before it leaves the team code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import { SettingsReader } from '../../core/settings/index.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Layout of the team files under the state dir. */
export interface TeamPaths {
  dir: string;
  config: string;
  trust: string;
  pull: string;
  /** The local fleet shard: a KB folder (documents/*.md) of pulled notes, recall's to write. */
  shard: string;
  /** Per-KB push ledgers. */
  pushDir: string;
  /** Per-KB publisher ids (see publisherId). */
  publisherDir: string;
}

export function teamPaths(stateDir: string): TeamPaths {
  const dir = path.join(stateDir, 'team');
  return {
    dir,
    config: path.join(dir, 'config.json'),
    trust: path.join(dir, 'trust.json'),
    pull: path.join(dir, 'pull.json'),
    shard: path.join(dir, 'shard'),
    pushDir: path.join(dir, 'push'),
    publisherDir: path.join(dir, 'publishers'),
  };
}

/** The file holding the publisher id of the KB at `realKb` (its real path). */
const publisherFile = (paths: TeamPaths, realKb: string): string =>
  path.join(paths.publisherDir, `${createHash('sha1').update(realKb).digest('hex').slice(0, 16)}.json`);

function readPublisher(file: string, realKb: string): string | null {
  const p = readJson<{ kb?: unknown; id?: unknown } | null>(file, null);
  return p && p.kb === realKb && typeof p.id === 'string' && /^[0-9a-f-]{36}$/.test(p.id) ? p.id : null;
}

/**
 * The publisher id of a KB pushed from this state dir: a random id made on its first push and kept
 * in `<state dir>/team/publishers/` (private to the user). With the database role it tells one
 * publisher from another where the host name cannot: two people on one host, two KBs of one person.
 * Concurrent first pushes agree: the file is created exclusively and the loser reads the winner's.
 */
export function publisherId(paths: TeamPaths, realKb: string): string {
  const file = publisherFile(paths, realKb);
  const known = readPublisher(file, realKb);
  if (known) return known;
  fs.mkdirSync(paths.publisherDir, { recursive: true, mode: 0o700 });
  const id = randomUUID();
  // Written whole to a temporary file, then linked into place: link fails when the name exists, so
  // of two first pushes one wins and the other reads its id (never a half-written file).
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ kb: realKb, id })}\n`, { flag: 'wx', mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
    return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const theirs = readPublisher(file, realKb);
  if (theirs) return theirs;
  // A file we cannot read as a publisher id (hand-edited): replace it.
  writeFileAtomic(file, `${JSON.stringify({ kb: realKb, id })}\n`);
  return id;
}

/** The publisher ids of every KB pushed from this state dir (publisher id → the KB's real path). */
export function localPublishers(paths: TeamPaths): Map<string, string> {
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = fs.readdirSync(paths.publisherDir);
  } catch {
    return out;
  }
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    const p = readJson<{ kb?: unknown; id?: unknown } | null>(path.join(paths.publisherDir, n), null);
    if (p && typeof p.kb === 'string' && typeof p.id === 'string') out.set(p.id, p.kb);
  }
  return out;
}

/** What `recall team init` records (never a password). */
export interface TeamConfigFile {
  url?: string;
  schema?: string;
  machine?: string;
  /** KB roots (absolute) that share every note, not only those marked `share: team`. */
  shareAll?: string[];
}

export interface TeamSettings {
  /** Connection URL as configured (may hold a password: never print it, use displayUrl). */
  url: string | null;
  /** Where the URL came from. */
  source: 'env' | 'config' | null;
  schema: string;
  /** Name of this machine in the store (RECALL_TEAM_MACHINE, else the config, else the host name). */
  machine: string;
  /** RECALL_TEAM_SHARE=all: every KB pushed from here shares all its notes. */
  shareAllEnv: boolean;
  shareAll: string[];
  /** RECALL_TEAM_ARM=1: query the store live as one more recall arm. */
  liveArm: boolean;
  /** Connect timeout of the team commands (RECALL_TEAM_CONNECT_TIMEOUT, seconds, default 10). */
  connectTimeoutMs: number;
  env: Env;
  paths: TeamPaths;
  warnings: string[];
}

/** Schema names are spliced into SQL as identifiers: lower-case letters, digits and _ only. */
const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The stable codes of team store failures (the CLI maps them); a failure of the server, the network
 * or the disk is E_TEAM, with its own code (a PostgreSQL SQLSTATE, ECONNREFUSED) in the message.
 */
export type TeamErrorCode =
  | 'E_TEAM'
  | 'E_TEAM_BUSY'
  | 'E_TEAM_NOT_CONFIGURED'
  | 'E_TEAM_NO_KB'
  | 'E_TEAM_NO_SCHEMA'
  | 'E_TEAM_PRIVILEGE'
  | 'E_TEAM_SCHEMA_NEWER'
  | 'E_TEAM_SCHEMA_OLD'
  | 'E_TEAM_TLS'
  | 'E_TEAM_URL';

export class TeamError extends Error {
  constructor(
    readonly code: TeamErrorCode,
    message: string,
    /** The code of the failure underneath (SQLSTATE, errno), '' when none. */
    readonly detail = '',
  ) {
    super(message);
    this.name = 'TeamError';
  }
}

/** The code of the failure underneath an error: a TeamError's detail, or pg's or node's own code. */
export const causeCode = (err: unknown): string =>
  err instanceof TeamError ? err.detail : String((err as { code?: unknown } | null)?.code ?? '');

export function readTeamConfig(paths: TeamPaths): TeamConfigFile {
  const raw = readJson<unknown>(paths.config, {});
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
}

export function writeTeamConfig(paths: TeamPaths, cfg: TeamConfigFile): void {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(paths.config, `${JSON.stringify(cfg, null, 2)}\n`);
  fs.chmodSync(paths.config, 0o600);
}

export function loadTeamSettings(env: Env, stateDir: string): TeamSettings {
  const paths = teamPaths(stateDir);
  const file = readTeamConfig(paths);
  // The settings reader's rules (core/settings/reader.ts); its warnings come first.
  const r = new SettingsReader(env);
  const warnings = r.warnings;
  const val = (k: string): string | undefined => r.raw(k);
  const envUrl = val('RECALL_TEAM_URL');
  const url = envUrl ?? (typeof file.url === 'string' && file.url ? file.url : null);
  let schema = val('RECALL_TEAM_SCHEMA') ?? (typeof file.schema === 'string' ? file.schema : 'recall');
  if (!SCHEMA_RE.test(schema)) {
    warnings.push(`RECALL_TEAM_SCHEMA=${JSON.stringify(schema)} is not a plain lower-case identifier; using recall`);
    schema = 'recall';
  }
  const timeoutSec = r.number('RECALL_TEAM_CONNECT_TIMEOUT');
  const share = val('RECALL_TEAM_SHARE')?.toLowerCase();
  if (share !== undefined && share !== 'all' && share !== 'marked')
    warnings.push(`RECALL_TEAM_SHARE=${JSON.stringify(share)} is not all or marked; using marked`);
  return {
    url,
    source: envUrl ? 'env' : url ? 'config' : null,
    schema,
    machine: val('RECALL_TEAM_MACHINE') ?? (typeof file.machine === 'string' && file.machine ? file.machine : os.hostname()),
    shareAllEnv: share === 'all',
    shareAll: Array.isArray(file.shareAll) ? file.shareAll.filter((s): s is string => typeof s === 'string') : [],
    liveArm: r.bool('RECALL_TEAM_ARM'),
    connectTimeoutMs: Math.round(timeoutSec * 1000),
    env,
    paths,
    warnings,
  };
}

/** The URL with its password removed (and query parameters other than TLS mode dropped), for display. */
export function displayUrl(url: string | null, env: Env = {}): string {
  if (!url) return '(not configured)';
  try {
    const u = new URL(url);
    u.password = '';
    const mode = u.searchParams.get('sslmode');
    u.search = mode ? `?sslmode=${mode}` : '';
    const host = u.host || env['PGHOST'] || 'localhost';
    const user = u.username || env['PGUSER'] || '';
    const db = u.pathname.replace(/^\//, '') || env['PGDATABASE'] || '';
    return `${u.protocol}//${user ? `${decodeURIComponent(user)}@` : ''}${host}/${db}${u.search}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** Secrets of these settings that must never appear in any message: URL password and PGPASSWORD. */
export function secretsOf(settings: Pick<TeamSettings, 'url' | 'env'>): string[] {
  const out: string[] = [];
  const add = (s: string | undefined | null): void => {
    if (!s) return;
    out.push(s);
    try {
      const dec = decodeURIComponent(s);
      if (dec !== s) out.push(dec);
    } catch {
      /* not URL-encoded */
    }
    const enc = encodeURIComponent(s);
    if (enc !== s) out.push(enc);
  };
  if (settings.url) {
    try {
      add(new URL(settings.url).password);
    } catch {
      // An unparsable URL: take whatever sits between "user:" and "@".
      add(/:\/\/[^:/@]*:([^@]*)@/.exec(settings.url)?.[1]);
    }
  }
  add(settings.env['PGPASSWORD']);
  return out.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** A message with every known secret and any URL userinfo password replaced by ***. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out.replace(/(\w+:\/\/[^:/@\s]*):[^@\s]*@/g, '$1:***@');
}
