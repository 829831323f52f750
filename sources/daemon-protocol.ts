/**
 * The model daemon's wire protocol and where its socket lives.
 *
 * One request per connection: the client writes one JSON line, the daemon answers one JSON line
 * and closes. Requests: ping, status, shutdown, embed {texts}, rerank {query, texts},
 * knn {index, generation, query, k}. Answers carry `ok`; failures `{ok: false, error}`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { ModelSettings } from './models/index.js';
import { MAX_SOCKET_PATH, mkdirPrivate, myUid, shortSocketDir } from '../io/private-fs.js';

export type DaemonRequest =
  | { op: 'ping' }
  | { op: 'status' }
  | { op: 'shutdown' }
  | { op: 'embed'; texts: string[] }
  | { op: 'rerank'; query: string; texts: string[] }
  | { op: 'knn'; index: string; generation: number; query: string; k: number };

export interface DaemonStatus {
  pid: number;
  uptimeSec: number;
  idleTimeoutSec: number;
  requests: number;
  rssBytes: number;
  models: { ce: string; embed: string; loaded: { embed: boolean; rerank: boolean } };
}

export type DaemonResponse =
  | {
      ok: true;
      pong?: true;
      status?: DaemonStatus;
      vectors?: number[][];
      scores?: number[];
      hits?: { path: string; score: number }[];
      query?: number[];
      bye?: true;
      model?: string;
    }
  | { ok: false; error: string };

/**
 * Socket of the daemon serving these models for this user: `<state dir>/run/models-<hash>.sock`.
 * When that path is too long for a unix socket, the folder is shortened by hashing the state dir,
 * never swapped for a shared name: `$XDG_RUNTIME_DIR/recall-<hash>/` (the user's own runtime dir),
 * else `<tmp>/recall-<uid>-<hash>/`, else the same in /tmp when the temp dir is itself too long
 * (shortSocketDir); any such folder must be the user's own, mode 0700
 * (checkSocketDir), or no daemon is used.
 */
export function daemonSocketPath(
  stateDir: string,
  settings: ModelSettings,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const uid = myUid();
  const key = createHash('sha1')
    .update(
      `${uid}|${settings.modelsDir}|${settings.ceModel}|${settings.embedModel}|${settings.ceMaxTokens ?? ''}|${settings.embedMaxTokens ?? ''}`,
    )
    .digest('hex')
    .slice(0, 12);
  const preferred = path.join(stateDir, 'run', `models-${key}.sock`);
  if (preferred.length <= MAX_SOCKET_PATH) return preferred;
  const dirHash = createHash('sha1').update(path.resolve(stateDir)).digest('hex').slice(0, 10);
  return path.join(shortSocketDir(dirHash, `models-${key}.sock`, env, os.tmpdir()), `models-${key}.sock`);
}

export class ForeignSocketError extends Error {
  readonly code = 'E_FOREIGN_SOCKET';
  constructor(message: string) {
    super(message);
    this.name = 'ForeignSocketError';
  }
}

/**
 * Create the socket's folder (mode 0700) and check it is this user's own, private, real folder:
 * another local user must not be able to bind the daemon's name first (and receive every prompt
 * and note) nor swap the folder for a link. Throws ForeignSocketError otherwise.
 */
export function checkSocketDir(socket: string): void {
  const dir = path.dirname(socket);
  mkdirPrivate(dir);
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new ForeignSocketError(`${dir} is not a real folder; the model daemon is not used`);
  if (st.uid !== myUid()) throw new ForeignSocketError(`${dir} belongs to uid ${st.uid}, not to this user; the model daemon is not used`);
  if ((st.mode & 0o077) !== 0) {
    try {
      fs.chmodSync(dir, 0o700);
    } catch {
      throw new ForeignSocketError(`${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}); the model daemon is not used`);
    }
  }
}

/** Check an existing socket file before talking to it: a socket owned by this user, else ForeignSocketError. ENOENT passes through. */
export function checkSocketOwner(socket: string): void {
  const st = fs.lstatSync(socket);
  if (!st.isSocket()) throw new ForeignSocketError(`${socket} is not a socket; the model daemon is not used`);
  if (st.uid !== myUid())
    throw new ForeignSocketError(`${socket} belongs to uid ${st.uid}, not to this user; the model daemon is not used`);
}

/** Largest request line the daemon accepts (20 texts × 2000 chars is ~40 KB; this is generous). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
