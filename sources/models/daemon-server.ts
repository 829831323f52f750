/**
 * The model daemon: one long-lived process per user and model set, holding the cross-encoder and
 * the embedder warm behind a unix socket, shared by every KB and caller.
 *
 * - Requests are served one at a time (the models are CPU-bound); a client that disconnects
 *   mid-request costs nothing but the work already started — the daemon stays up.
 * - Exits after `idleTimeoutSec` without a request (0 = never), on `shutdown`, or on SIGTERM/SIGINT;
 *   it removes its socket only if the file is still the one it created.
 * - If another live daemon already owns the socket, this one exits quietly (a spawn race has one
 *   winner); a stale socket file (nobody listening) is removed and taken over.
 * - The socket is created with mode 0600.
 */
import { checkSocketDir } from './daemon-protocol.js';
import fs from 'node:fs';
import net from 'node:net';
import { openDatabase } from '../sqlite.js';
import { ModelRuntime } from './runtime.js';
import type { ModelSettings } from './model-store.js';
import { MAX_REQUEST_BYTES, type DaemonRequest, type DaemonResponse, type DaemonStatus } from './daemon-protocol.js';
import { knn, loadMatrix, type VectorMatrix } from './vector-store.js';

export interface ServeOptions {
  socket: string;
  settings: ModelSettings;
  idleTimeoutSec: number;
  log?: (line: string) => void;
}

function canConnect(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(socket);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

function listen(server: net.Server, socket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    const old = process.umask(0o177);
    try {
      server.listen(socket);
    } finally {
      process.umask(old);
    }
  });
}

/** Resolves when the daemon has stopped; resolves at once with 'lost-race' when another daemon owns the socket. */
export async function serve(opts: ServeOptions): Promise<'stopped' | 'lost-race'> {
  const log = opts.log ?? (() => undefined);
  checkSocketDir(opts.socket);
  const runtime = new ModelRuntime(opts.settings);
  const started = Date.now();
  let requests = 0;
  let queue: Promise<unknown> = Promise.resolve();
  let idleTimer: NodeJS.Timeout | null = null;
  const matrices = new Map<string, { generation: number; matrix: VectorMatrix }>();

  const server = net.createServer();
  try {
    await listen(server, opts.socket);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    if (await canConnect(opts.socket)) return 'lost-race';
    fs.rmSync(opts.socket, { force: true });
    await listen(server, opts.socket);
  }
  const inode = fs.statSync(opts.socket).ino;
  log(`listening on ${opts.socket} (pid ${process.pid})`);

  let stopping: Promise<'stopped'> | null = null;
  const stop = (): Promise<'stopped'> => {
    stopping ??= new Promise((resolve) => {
      if (idleTimer) clearTimeout(idleTimer);
      server.close(() => resolve('stopped'));
      try {
        if (fs.statSync(opts.socket).ino === inode) fs.rmSync(opts.socket, { force: true });
      } catch {
        /* already gone */
      }
    });
    return stopping;
  };
  const armIdle = (): void => {
    if (idleTimer) clearTimeout(idleTimer);
    if (opts.idleTimeoutSec > 0) {
      idleTimer = setTimeout(() => {
        log(`idle for ${opts.idleTimeoutSec} s; exiting`);
        void stop();
      }, opts.idleTimeoutSec * 1000);
      idleTimer.unref();
    }
  };
  armIdle();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void stop());

  const status = (): DaemonStatus => ({
    pid: process.pid,
    uptimeSec: Math.round((Date.now() - started) / 1000),
    idleTimeoutSec: opts.idleTimeoutSec,
    requests,
    rssBytes: process.memoryUsage().rss,
    models: { ...runtime.ids, loaded: runtime.loaded() },
  });

  const matrixFor = (index: string, generation: number): VectorMatrix => {
    const cached = matrices.get(index);
    if (cached && cached.generation === generation) return cached.matrix;
    const db = openDatabase(index, { readonly: true, fileMustExist: true });
    try {
      const matrix = loadMatrix(db, opts.settings.embedModel);
      matrices.set(index, { generation, matrix });
      return matrix;
    } finally {
      db.close();
    }
  };

  const handle = async (req: DaemonRequest): Promise<DaemonResponse> => {
    switch (req.op) {
      case 'ping':
        return { ok: true, pong: true };
      case 'status':
        return { ok: true, status: status() };
      case 'shutdown':
        setImmediate(() => void stop());
        return { ok: true, bye: true };
      case 'embed':
        return { ok: true, model: opts.settings.embedModel, vectors: await runtime.embed(req.texts) };
      case 'rerank':
        return { ok: true, model: opts.settings.ceModel, scores: await runtime.rerank(req.query, req.texts) };
      case 'knn': {
        const [q] = await runtime.embed([req.query]);
        return { ok: true, model: opts.settings.embedModel, query: q!, hits: knn(matrixFor(req.index, req.generation), q!, req.k) };
      }
      default:
        return { ok: false, error: `unknown op: ${(req as { op?: unknown }).op}` };
    }
  };

  server.on('connection', (conn) => {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('error', () => undefined);
    conn.on('data', (chunk: string) => {
      buf += chunk;
      if (buf.length > MAX_REQUEST_BYTES) {
        conn.end(`${JSON.stringify({ ok: false, error: 'request too large' })}\n`);
        return;
      }
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const line = buf.slice(0, nl);
      conn.pause();
      requests += 1;
      armIdle();
      queue = queue.then(async () => {
        let res: DaemonResponse;
        try {
          res = await handle(JSON.parse(line) as DaemonRequest);
        } catch (err) {
          res = { ok: false, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
        }
        // The client may have gone away (timeout, killed): answering then is a no-op.
        if (!conn.destroyed) conn.end(`${JSON.stringify(res)}\n`);
        armIdle();
      });
    });
  });

  return new Promise((resolve) => {
    server.once('close', () => resolve('stopped'));
  });
}
