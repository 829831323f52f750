/**
 * The model daemon's wire protocol and where its socket lives.
 *
 * One request per connection: the client writes one JSON line, the daemon answers one JSON line
 * and closes. Requests: ping, status, shutdown, embed {texts}, rerank {query, texts},
 * knn {index, generation, query, k}. Answers carry `ok`; failures `{ok: false, error}`.
 */
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { ModelSettings } from './model-store.js';

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
  | { ok: true; pong?: true; status?: DaemonStatus; vectors?: number[][]; scores?: number[]; hits?: { path: string; score: number }[]; query?: number[]; bye?: true; model?: string }
  | { ok: false; error: string };

/** Longest unix socket path we use (sun_path is 104–108 bytes depending on the OS). */
const MAX_SOCKET_PATH = 100;

/**
 * Socket of the daemon serving these models for this user: `<state dir>/run/models-<hash>.sock`,
 * or under the temp dir when that path would be too long for a unix socket.
 */
export function daemonSocketPath(stateDir: string, settings: ModelSettings): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const key = createHash('sha1').update(`${uid}|${settings.modelsDir}|${settings.ceModel}|${settings.embedModel}|${settings.ceMaxTokens ?? ''}|${settings.embedMaxTokens ?? ''}`).digest('hex').slice(0, 12);
  const preferred = path.join(stateDir, 'run', `models-${key}.sock`);
  return preferred.length <= MAX_SOCKET_PATH ? preferred : path.join(os.tmpdir(), `recall-models-${key}.sock`);
}

/** Largest request line the daemon accepts (20 texts × 2000 chars is ~40 KB; this is generous). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
