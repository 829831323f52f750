/**
 * Client of the model daemon: sends one request, spawning the daemon (detached) when nobody
 * listens. Two callers racing to spawn it end with one daemon: spawning happens under an exclusive
 * lock file, and a daemon that finds the socket taken exits.
 *
 * Every call takes an AbortSignal: aborting (the caller's deadline) destroys the connection and
 * stops waiting for a spawn; the daemon keeps running for the next caller.
 */
import fs from 'node:fs';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { checkSocketDir, checkSocketOwner, type DaemonRequest, type DaemonResponse } from '../daemon-protocol.js';

export interface ClientOptions {
  socket: string;
  /** argv to start a daemon (e.g. [process.execPath, '<daemon entry>', '--socket', s]). */
  spawnCommand: string[];
  /** Environment of a spawned daemon. */
  env: Readonly<Record<string, string | undefined>>;
  /** Give up connecting to an existing socket after this long. */
  connectTimeoutMs?: number;
  /** How long to wait for a freshly spawned daemon to listen. */
  spawnWaitMs?: number;
  /** Never spawn (status/stop commands). */
  noSpawn?: boolean;
}

const CONNECT_TIMEOUT_MS = 2000;
const SPAWN_WAIT_MS = 15_000;
const POLL_MS = 50;
/** A spawn lock older than this is a leftover of a crashed spawner. */
const STALE_LOCK_MS = 20_000;

export class DaemonUnavailable extends Error {
  readonly code = 'E_DAEMON';
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** One request over one connection; rejects with ECONNREFUSED/ENOENT-style errors when nobody listens. */
function exchange(socket: string, req: DaemonRequest, signal: AbortSignal, connectTimeoutMs: number): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    // Only a socket of this user, in this user's private folder, ever sees a prompt or a note.
    try {
      checkSocketDir(socket);
      checkSocketOwner(socket);
    } catch (err) {
      return reject(err);
    }
    const conn = net.connect(socket);
    let buf = '';
    let connected = false;
    const timer = setTimeout(() => {
      if (!connected) {
        conn.destroy();
        reject(Object.assign(new Error(`no answer from ${socket} within ${connectTimeoutMs} ms`), { code: 'ETIMEDOUT' }));
      }
    }, connectTimeoutMs);
    const onAbort = (): void => {
      conn.destroy();
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    conn.setEncoding('utf8');
    conn.once('connect', () => {
      connected = true;
      conn.write(`${JSON.stringify(req)}\n`);
    });
    conn.on('data', (c: string) => {
      buf += c;
    });
    conn.once('error', (err) => {
      done();
      reject(err);
    });
    conn.once('close', () => {
      done();
      const line = buf.split('\n')[0] ?? '';
      if (!line)
        return reject(Object.assign(new Error('the model daemon closed the connection without answering'), { code: 'ECONNRESET' }));
      try {
        resolve(JSON.parse(line) as DaemonResponse);
      } catch {
        reject(new Error('the model daemon sent an unreadable answer'));
      }
    });
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Take the spawn lock; false when another live spawner holds it. */
function takeSpawnLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lock, `${process.pid} ${Date.now()}`, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const [pid, at] = fs.readFileSync(lock, 'utf8').split(' ').map(Number);
      // A time in the future is as suspect as an old one (clock change, or a planted file).
      const age = Date.now() - (at ?? 0);
      const stale = !pid || !pidAlive(pid) || !(age >= 0 && age <= STALE_LOCK_MS);
      if (!stale) return false;
      fs.rmSync(lock, { force: true });
    }
  }
  return false;
}

function spawnDaemon(opts: ClientOptions): void {
  const [cmd, ...args] = opts.spawnCommand;
  const child = spawn(cmd!, args, { detached: true, stdio: 'ignore', env: opts.env });
  child.unref();
}

const unreachable = (err: unknown): boolean => ['ENOENT', 'ECONNREFUSED', 'ENOTSOCK'].includes((err as NodeJS.ErrnoException).code ?? '');

/** Send a request, spawning the daemon first if nobody listens (unless noSpawn). */
export async function daemonRequest(req: DaemonRequest, opts: ClientOptions, signal: AbortSignal): Promise<DaemonResponse> {
  const connectTimeout = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  try {
    return await exchange(opts.socket, req, signal, connectTimeout);
  } catch (err) {
    if (!unreachable(err) || opts.noSpawn) throw err;
  }
  const lock = `${opts.socket}.spawnlock`;
  checkSocketDir(opts.socket);
  const mine = takeSpawnLock(lock);
  try {
    if (mine) {
      // Re-check under the lock: another caller may have finished spawning meanwhile.
      try {
        return await exchange(opts.socket, req, signal, connectTimeout);
      } catch (err) {
        if (!unreachable(err)) throw err;
      }
      fs.rmSync(opts.socket, { force: true });
      spawnDaemon(opts);
    }
    const deadline = Date.now() + (opts.spawnWaitMs ?? SPAWN_WAIT_MS);
    for (;;) {
      await sleep(POLL_MS, signal);
      try {
        return await exchange(opts.socket, req, signal, connectTimeout);
      } catch (err) {
        if (!unreachable(err)) throw err;
        if (Date.now() > deadline)
          throw new DaemonUnavailable(`the model daemon did not start within ${opts.spawnWaitMs ?? SPAWN_WAIT_MS} ms`);
      }
    }
  } finally {
    if (mine) fs.rmSync(lock, { force: true });
  }
}
