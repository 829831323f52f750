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
import { checkSocketDir } from '../daemon-protocol.js';
import fs from 'node:fs';
import net from 'node:net';
import { bindSocket } from '../unix-socket.js';
import { openDatabase } from '../sqlite/index.js';
import { ModelRuntime } from './runtime.js';
import type { ModelSettings } from './model-store.js';
import { MAX_REQUEST_BYTES, type DaemonRequest, type DaemonResponse, type DaemonStatus } from '../daemon-protocol.js';
import { knn, loadMatrix, type VectorMatrix } from './vector-store.js';

export interface ServeOptions {
  socket: string;
  settings: ModelSettings;
  idleTimeoutSec: number;
  log?: (line: string) => void;
}

/** A bound daemon: its models, its request queue (one at a time), its idle timer and its way out. */
class Daemon {
  private readonly runtime: ModelRuntime;
  private readonly started = Date.now();
  private requests = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly matrices = new Map<string, { generation: number; matrix: VectorMatrix }>();
  private stopping: Promise<'stopped'> | null = null;
  private readonly inode: number;
  private readonly log: (line: string) => void;

  constructor(
    private readonly server: net.Server,
    private readonly opts: ServeOptions,
  ) {
    this.runtime = new ModelRuntime(opts.settings);
    this.inode = fs.statSync(opts.socket).ino;
    this.log = opts.log ?? (() => undefined);
  }

  run(): Promise<'stopped'> {
    this.log(`listening on ${this.opts.socket} (pid ${process.pid})`);
    this.armIdle();
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void this.stop());
    this.server.on('connection', (conn) => this.serveConnection(conn));
    return new Promise((resolve) => {
      this.server.once('close', () => resolve('stopped'));
    });
  }

  /** Close the server and remove the socket, if the file is still the one this daemon created. */
  private stop(): Promise<'stopped'> {
    this.stopping ??= new Promise((resolve) => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.server.close(() => resolve('stopped'));
      try {
        if (fs.statSync(this.opts.socket).ino === this.inode) fs.rmSync(this.opts.socket, { force: true });
      } catch {
        /* already gone */
      }
    });
    return this.stopping;
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const sec = this.opts.idleTimeoutSec;
    if (sec <= 0) return;
    this.idleTimer = setTimeout(() => {
      this.log(`idle for ${sec} s; exiting`);
      void this.stop();
    }, sec * 1000);
    this.idleTimer.unref();
  }

  private status(): DaemonStatus {
    return {
      pid: process.pid,
      uptimeSec: Math.round((Date.now() - this.started) / 1000),
      idleTimeoutSec: this.opts.idleTimeoutSec,
      requests: this.requests,
      rssBytes: process.memoryUsage().rss,
      models: { ...this.runtime.ids, loaded: this.runtime.loaded() },
    };
  }

  /** The note vectors of an index, loaded once per index generation. */
  private matrixFor(index: string, generation: number): VectorMatrix {
    const cached = this.matrices.get(index);
    if (cached && cached.generation === generation) return cached.matrix;
    const db = openDatabase(index, { readonly: true, fileMustExist: true });
    try {
      const matrix = loadMatrix(db, this.opts.settings.embedModel);
      this.matrices.set(index, { generation, matrix });
      return matrix;
    } finally {
      db.close();
    }
  }

  private async handle(req: DaemonRequest): Promise<DaemonResponse> {
    const { embedModel, ceModel } = this.opts.settings;
    switch (req.op) {
      case 'ping':
        return { ok: true, pong: true };
      case 'status':
        return { ok: true, status: this.status() };
      case 'shutdown':
        setImmediate(() => void this.stop());
        return { ok: true, bye: true };
      case 'embed':
        return { ok: true, model: embedModel, vectors: await this.runtime.embed(req.texts) };
      case 'rerank':
        return { ok: true, model: ceModel, scores: await this.runtime.rerank(req.query, req.texts) };
      case 'knn': {
        const [q] = await this.runtime.embed([req.query]);
        return { ok: true, model: embedModel, query: q!, hits: knn(this.matrixFor(req.index, req.generation), q!, req.k) };
      }
      default:
        return { ok: false, error: `unknown op: ${String((req as { op?: unknown }).op)}` };
    }
  }

  /** One request line per connection, answered in turn with the other connections' requests. */
  private serveConnection(conn: net.Socket): void {
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
      this.requests += 1;
      this.armIdle();
      this.queue = this.queue.then(() => this.answer(conn, line));
    });
  }

  private async answer(conn: net.Socket, line: string): Promise<void> {
    let res: DaemonResponse;
    try {
      res = await this.handle(JSON.parse(line) as DaemonRequest);
    } catch (err) {
      res = { ok: false, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
    }
    // The client may have gone away (timeout, killed): answering then is a no-op.
    if (!conn.destroyed) conn.end(`${JSON.stringify(res)}\n`);
    this.armIdle();
  }
}

/** Resolves when the daemon has stopped; resolves at once with 'lost-race' when another daemon owns the socket. */
export async function serve(opts: ServeOptions): Promise<'stopped' | 'lost-race'> {
  checkSocketDir(opts.socket);
  const server = net.createServer();
  if (!(await bindSocket(server, opts.socket))) return 'lost-race';
  return new Daemon(server, opts).run();
}
