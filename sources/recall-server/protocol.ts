/**
 * The recall server's wire protocol and where its socket lives. Shared by the server and the thin
 * client, so it imports node built-ins, the socket ownership checks and the truthy words only: a hook that talks to
 * the server must load nothing else.
 *
 * One request per connection, newline-delimited JSON. The client writes one request line; the server
 * answers at once with an `accepted` line (proof that it is alive and not stuck in other work); the
 * client confirms with a `go` line; the server runs the request, writes one answer line and closes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';
import { envFlag } from '../../core/truthy.js';
import { resolveStateDir } from '../../core/state-dir.js';
import { MAX_SOCKET_PATH, shortSocketDir } from '../../io/private-fs.js';
import type { HookCall } from '../../io/hook-input.js';

export { checkSocketDir, checkSocketOwner, ForeignSocketError } from '../daemon-protocol.js';

// node:crypto is loaded only for a state dir whose socket path is too long: loading it costs a hook's
// thin client about 1.5 ms of its start, and the usual path needs no hash.
const loadBuiltin = createRequire(import.meta.url);

/** Bumped when a request or answer changes shape; a server of another version declines. */
export const PROTOCOL_VERSION = 2;

export type Env = Readonly<Record<string, string | undefined>>;

export interface HookRequest {
  op: 'hook';
  v: number;
  /**
   * The hook call as its client put it together (settings read and deadline worked out once, there):
   * the server answers it before `call.deadlineMs`, with an empty context when it cannot run it in time.
   */
  call: HookCall;
  /** The client's build of recall (see buildStamp; absent from older clients). */
  build?: string;
}

export interface CliRequest {
  op: 'cli';
  v: number;
  argv: string[];
  env: Env;
  cwd: string;
  isTty: boolean;
  /** The client's build of recall (see buildStamp; absent from older clients). */
  build?: string;
}

export type ServerRequest = HookRequest | CliRequest | { op: 'status'; v: number } | { op: 'shutdown'; v: number };

export interface ServerStatus {
  pid: number;
  uptimeSec: number;
  idleTimeoutSec: number;
  /** Hook and recall requests served (status and stop requests are not counted). */
  requests: number;
  rssBytes: number;
  /** Knowledge bases held open, with how each is kept fresh. */
  kbs: { root: string; index: string; watching: boolean; why: string | null; dirs: number }[];
  /** Index lookups run on worker threads, and those that fell back to the server's own thread (absent: no threads). */
  lookups?: { threads: number; ready: number; answered: number; refused: number; lastRefusal: string | null } | null;
  /** Requests run at once (limit), running and waiting now, and answered "too late" since the start (absent: older server). */
  admission?: { limit: number; running: number; queued: number; shed: number };
  /**
   * The threads that check a call's project files answer (server/project-probe.ts): threads stuck
   * on a read that has not returned, calls answered without their project (absent: older server).
   */
  probe?: { threads: number; ready: number; stuck: number; probed: number; unanswered: number; disabled: string | null };
}

export type ServerAnswer =
  | { ok: true; envelope: string }
  | { ok: true; stdout: string; stderr: string; code: number }
  | { ok: true; status: ServerStatus }
  | { ok: true; bye: true }
  /** Not something the server runs (another command, another version): the client runs it itself. */
  | { ok: false; decline: string }
  | { ok: false; error: string };

/**
 * Which build of recall a server file belongs to: the `build-id` next to it, a hash of every bundled
 * module that the build writes (scripts/bundle.mjs). The server reads it when it starts, the client
 * on each call (a 33-byte read). They differ once recall is rebuilt or updated (a plugin update
 * installs into another folder, but the socket stays in the same state dir): the old server then
 * declines and stops, so nobody keeps running the code of before the update. Two installs of one
 * build in two folders have the same id, and share one server. Null when there is no readable id
 * (a bundle built before build ids): then builds are not compared.
 */
export function buildStamp(serverFile: string): string | null {
  try {
    const id = fs.readFileSync(path.join(path.dirname(serverFile), 'build-id'), 'utf8').trim();
    return /^[0-9a-f]{16,64}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

export const ACCEPTED_LINE = '{"accepted":true}';
/**
 * The client's reply to ACCEPTED_LINE. A request has effects (recall logs, the ids a session was
 * given), so the server runs it only once the client confirmed it still waits: a client that gave
 * up and runs the call itself never has it run twice.
 */
export const GO_LINE = '{"go":true}';

/** Largest request line the server reads (a hook's stdin is capped at 4 MiB; env and argv are small). */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** recall's state dir as the configuration resolves it ($REFLECT_STATE_DIR, else ~/.reflect). */
export function stateDirOf(env: Env): string {
  const raw = (k: string): string | undefined => {
    const v = env[k];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  // core/state-dir.ts: a relative setting is taken from HOME, as every other process reads it.
  return resolveStateDir(raw('HOME') ?? os.homedir(), raw('REFLECT_STATE_DIR'));
}

/**
 * The server's socket for this state dir: `<state dir>/run/recall.sock`, in the same 0700 folder as
 * the model daemon's. When that path is too long for a unix socket, a folder named by a hash of the
 * state dir in the user's own runtime dir, else in the temp dir, else in /tmp (shortSocketDir;
 * checked like the daemon's).
 */
export function serverSocketPath(env: Env): string {
  const stateDir = stateDirOf(env);
  const preferred = path.join(stateDir, 'run', 'recall.sock');
  if (preferred.length <= MAX_SOCKET_PATH) return preferred;
  const { createHash } = loadBuiltin('node:crypto') as typeof Crypto;
  const dirHash = createHash('sha1').update(stateDir).digest('hex').slice(0, 10);
  return path.join(shortSocketDir(dirHash, 'recall.sock', env, os.tmpdir()), 'recall.sock');
}

/**
 * Variables read from the environment only, never from recall.toml: the thin client decides whether
 * to use the server before it loads anything, and reading that file would cost every hook the time
 * the server saves; RECALL_EXTRA_CA_CERTS is the CA bundle the hook command keeps from a hook's node
 * (docs/settings.md documents each).
 */
export const ENV_ONLY_SETTINGS = ['RECALL_NO_SERVER', 'RECALL_SERVER_WAIT_MS', 'RECALL_EXTRA_CA_CERTS'] as const;

/** How long the server has to accept a request before the client runs it itself (measured: < 5 ms when idle). */
const DEFAULT_WAIT_MS = 200;

/** RECALL_SERVER_WAIT_MS: a positive number of milliseconds up to 10 s, else the default. */
export function serverWaitMs(env: Env): number {
  const n = Number((env['RECALL_SERVER_WAIT_MS'] ?? '').trim());
  return Number.isFinite(n) && n > 0 ? Math.min(n, 10_000) : DEFAULT_WAIT_MS;
}

/** Whether the user switched the server off (RECALL_NO_SERVER=1): every call runs in its own process. */
export function serverDisabled(env: Env): boolean {
  return envFlag(env, 'RECALL_NO_SERVER');
}
