/**
 * The recall server: one long-lived process per user and state dir that answers hooks and plain
 * `recall QUERY` calls for thin clients, with each KB's index kept open and fresh through a file
 * watcher (see kb-pool.ts), and word tables, bundles and JIT-compiled code already warm.
 *
 * - Listens on a unix socket in the user's 0700 run dir (mode 0600); if another live server already
 *   owns it, this one exits (a spawn race has one winner); a stale socket file is taken over.
 * - Each request runs exactly the code a one-shot process runs (answerHook on the client's hook call,
 *   the CLI's main), with the client's environment and working directory, so the answer is the same
 *   either way.
 * - Exits after REFLECT_IDLE_TIMEOUT seconds without a request, on `shutdown`, on SIGTERM/SIGINT,
 *   or when its socket file is removed (its state dir deleted): it never outlives its purpose.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { bindSocket } from '../sources/unix-socket.js';
import path from 'node:path';
import { answerHook } from '../hooks/answer.js';
import { isHookName } from '../hooks/hook-table.js';
import { RUN_CUT_BEFORE_MS, type HookCall } from '../io/hook-input.js';
import { Admission } from './admission.js';
import { callerSettings, tooLateHook, wellFormedCall } from './caller-request.js';
import { fastParse } from '../cli/options.js';
import { main as cliMain } from '../cli/cli.js';
import { terminalSafe } from '../sinks/safe-text.js';
import { KbPool } from './kb-pool.js';
import { unreadableCwd, unreadablePaths, type ProjectProbe, type Unreadable } from './unreadable.js';
import { EventFence } from './watcher.js';
import {
  ACCEPTED_LINE,
  GO_LINE,
  MAX_REQUEST_BYTES,
  PROTOCOL_VERSION,
  checkSocketDir,
  type CliRequest,
  type ServerAnswer,
  type ServerRequest,
  type ServerStatus,
} from '../sources/recall-server/index.js';

export interface ServeOptions {
  socket: string;
  idleTimeoutSec: number;
  pool: KbPool;
  /** This server's build (buildStamp of its own file when it started); null or absent: not checked. */
  build?: string | null;
  /** Its build as its install folder holds it now (buildStamp again); absent: not checked. */
  installedBuild?: () => string | null;
  /** Checks that a call's project files answer before the call reads them here (absent: not checked). */
  probe?: ProjectProbe | null;
}

/**
 * A hook call, answered as the in-process path answers it (answerHook), with its indexes from the
 * pool. The client's SQLite driver choice must be this process's.
 */
async function serveHook(call: HookCall, pool: KbPool, unreadable: Unreadable): Promise<ServerAnswer> {
  if (!isHookName(call.name)) return { ok: false, decline: `unknown hook ${String(call.name)}` };
  if (!sameDriver(call.env)) return { ok: false, decline: 'another SQLite driver asked for' };
  return { ok: true, envelope: await answerHook(call, { recallIo: { openIndex: pool.opener }, unreadable, outlivesCall: true }) };
}

/** A plain `recall QUERY`, run as bin/recall runs it; anything else (subcommands, stdin) is declined. */
async function answerCli(req: CliRequest, pool: KbPool): Promise<ServerAnswer> {
  const fast = fastParse(req.argv);
  if (!fast || fast.query === '-') return { ok: false, decline: 'not a plain recall' };
  if (!sameDriver(req.env)) return { ok: false, decline: 'another SQLite driver asked for' };
  const { env, warnings } = callerSettings(req);
  let stdout = '';
  let stderr = '';
  const code = await cliMain({
    argv: req.argv,
    env,
    cwd: req.cwd,
    stdout: (s) => void (stdout += terminalSafe(s)),
    stderr: (s) => void (stderr += terminalSafe(s)),
    isTty: req.isTty,
    stdinIsTty: true,
    configWarnings: warnings,
    openIndex: pool.opener,
  });
  return { ok: true, stdout, stderr, code };
}

function sameDriver(env: HookCall['env']): boolean {
  const norm = (v: string | undefined): string => (v ?? '').trim().toLowerCase();
  return norm(env['RECALL_SQLITE_DRIVER']) === norm(process.env['RECALL_SQLITE_DRIVER']);
}

/** Reads the lines a client sends on one connection; null once it closed or sent too much. */
function lineReader(conn: net.Socket): () => Promise<string | null> {
  let buf = '';
  let ended = false;
  let waiter: ((line: string | null) => void) | null = null;
  const pump = (): void => {
    if (!waiter) return;
    const nl = buf.indexOf('\n');
    if (nl < 0 && !ended) return;
    const w = waiter;
    waiter = null;
    if (nl < 0) return w(null);
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    w(line);
  };
  conn.setEncoding('utf8');
  const end = (): void => {
    ended = true;
    pump();
  };
  conn.on('error', end);
  conn.on('close', end);
  conn.on('data', (chunk: string) => {
    buf += chunk;
    if (buf.length > MAX_REQUEST_BYTES) {
      buf = '';
      conn.destroy();
    }
    pump();
  });
  return () =>
    new Promise((resolve) => {
      waiter = resolve;
      pump();
    });
}

/** One connection: request line, accepted, the client's go, then the answer. */
async function serveConnection(conn: net.Socket, handle: (req: ServerRequest) => Promise<ServerAnswer>, touch: () => void): Promise<void> {
  const next = lineReader(conn);
  const line = await next();
  if (line === null || conn.destroyed) return void conn.destroy();
  touch();
  conn.write(`${ACCEPTED_LINE}\n`);
  // A client that gave up waiting runs the call itself: then this one must not run it too.
  if ((await next()) !== GO_LINE) return void conn.destroy();
  let answer: ServerAnswer;
  try {
    answer = await handle(JSON.parse(line) as ServerRequest);
  } catch (err) {
    answer = { ok: false, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
  // The client may have gone away (killed): answering then is a no-op.
  if (!conn.destroyed) conn.end(`${JSON.stringify(answer)}\n`);
  touch();
}

/**
 * Requests run at once: one per core (at least 2). A hook's pipeline is mostly CPU in this thread
 * and its lookup threads; more at once only makes every one of them slower.
 */
const CONCURRENCY = Math.max(2, os.availableParallelism());
/** Requests waiting at most (hooks arrive in bursts of a few hundred at the very worst). */
const MAX_QUEUED = 1000;

/** What a server answers, given how to stop it. */
function requestHandler(opts: ServeOptions, fence: EventFence, stop: () => void): (req: ServerRequest) => Promise<ServerAnswer> {
  const started = Date.now();
  let requests = 0;
  const admission = new Admission({ limit: CONCURRENCY, maxQueued: MAX_QUEUED });
  const status = (): ServerStatus => ({
    pid: process.pid,
    uptimeSec: Math.round((Date.now() - started) / 1000),
    idleTimeoutSec: opts.idleTimeoutSec,
    requests,
    rssBytes: process.memoryUsage().rss,
    kbs: opts.pool.status(),
    lookups: opts.pool.lookups(),
    admission: { limit: CONCURRENCY, ...admission.load() },
    ...(opts.probe ? { probe: opts.probe.stats() } : {}),
  });
  return async (req) => {
    if (req.v !== PROTOCOL_VERSION) return { ok: false, decline: `protocol ${String(req.v)} (server speaks ${PROTOCOL_VERSION})` };
    // recall was rebuilt or updated since this server started, or its folder removed while another install
    // of its build calls it (its lazily loaded modules are gone): the caller runs its own code, and this
    // server stops, so the next call starts one from the caller's install.
    const moved = (): boolean => opts.installedBuild !== undefined && opts.installedBuild() !== opts.build;
    const op = req.op === 'hook' || req.op === 'cli';
    if (op && opts.build && ((req.build !== undefined && req.build !== opts.build) || moved())) {
      setImmediate(stop);
      return { ok: false, decline: 'another build of recall, or this server was started from a folder since removed (it stops now)' };
    }
    if (req.op === 'status') return { ok: true, status: status() };
    if (req.op === 'shutdown') {
      setImmediate(stop);
      return { ok: true, bye: true };
    }
    requests += 1;
    if (req.op !== 'hook' && req.op !== 'cli') return { ok: false, decline: 'unknown request' };
    // Every file event queued before a request is handled first (else every KB is compared file by
    // file); the fence is passed while the request's paths are probed.
    const passed = fence.pass().catch(() => opts.pool.distrust());
    const fenced = (serve: () => Promise<ServerAnswer>) => async (): Promise<ServerAnswer> => passed.then(serve);
    if (req.op === 'hook') {
      const { call } = req;
      if (!wellFormedCall(call)) return { ok: false, decline: 'not a hook call this server reads' };
      const unreadable = await unreadablePaths(opts.probe, call);
      // The call's own deadline, as its client worked it out: a run must be over (cut) before the
      // client stops waiting, so one that cannot start in time is answered empty at once.
      const deadlineMs = call.deadlineMs - RUN_CUT_BEFORE_MS;
      const run = fenced(() => serveHook(call, opts.pool, unreadable));
      return admission.submit({ kind: call.name, deadlineMs, run, tooLate: (why) => tooLateHook(call, why) });
    }
    // A plain recall in a folder that does not answer runs in its client's process (blocking that one terminal only).
    const unreadable = await unreadableCwd(opts.probe, req);
    if (unreadable) return { ok: false, decline: unreadable };
    // A plain recall has no deadline: it waits its turn (or, past MAX_QUEUED, its client runs it).
    const run = fenced(() => answerCli(req, opts.pool));
    return admission.submit({ kind: 'cli', deadlineMs: Infinity, run, tooLate: (why) => ({ ok: false, decline: why }) });
  };
}

/**
 * Resolves when the server has stopped; 'lost-race' at once when another server owns the socket;
 * 'gone' at once when the folder holding its run folder (the state dir) was removed after the client
 * started it: a server must not bring back a state dir its user (or a test's cleanup) just deleted.
 */
export async function serveRecall(opts: ServeOptions): Promise<'stopped' | 'lost-race' | 'gone'> {
  if (!fs.existsSync(path.dirname(path.dirname(opts.socket)))) return 'gone';
  checkSocketDir(opts.socket);
  const server = net.createServer();
  const bound = await bindSocket(server, opts.socket);
  // The client that started this server left a lock so that no other client starts one meanwhile.
  try {
    fs.rmSync(`${opts.socket}.spawnlock`, { force: true });
  } catch {
    /* it expires by itself */
  }
  if (!bound) return 'lost-race';
  const inode = fs.statSync(opts.socket).ino;
  const fence = new EventFence(path.dirname(opts.socket));
  const conns = new Set<net.Socket>();
  let idleTimer: NodeJS.Timeout | null = null;
  let done: (v: 'stopped') => void = () => undefined;
  const stopped = new Promise<'stopped'>((resolve) => (done = resolve));
  const stop = once(() => {
    if (idleTimer) clearTimeout(idleTimer);
    clearInterval(check);
    quietly(() => opts.probe?.close());
    for (const close of [() => guard.close(), () => fence.close(), () => opts.pool.close(), () => server.close(() => done('stopped'))])
      quietly(close);
    if (inodeOf(opts.socket) === inode) quietly(() => fs.rmSync(opts.socket, { force: true }));
    // A request still running (a hook stuck on a full or vanished disk) must not keep the server
    // alive: its client has its own deadline and fallback.
    for (const c of conns) c.destroy();
    setTimeout(() => done('stopped'), 2000);
  });
  const armIdle = (): void => {
    if (idleTimer) clearTimeout(idleTimer);
    if (opts.idleTimeoutSec > 0) idleTimer = setTimeout(stop, opts.idleTimeoutSec * 1000);
  };
  // The socket file gone or replaced (state dir deleted, another server took over): stop. The
  // folder watch sees that at once; a cheap periodic look covers a watch that missed it.
  const gone = (): void => {
    if (inodeOf(opts.socket) !== inode) stop();
  };
  const guard = fs.watch(path.dirname(opts.socket), { persistent: false }, gone);
  guard.on('error', gone);
  const check = setInterval(gone, SOCKET_CHECK_MS);
  check.unref();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, stop);
  armIdle();
  const handle = requestHandler(opts, fence, stop);
  server.on('connection', (conn) => {
    conns.add(conn);
    conn.once('close', () => conns.delete(conn));
    void serveConnection(conn, handle, armIdle);
  });
  return stopped;
}

/** How often the server checks that its socket file is still its own. */
const SOCKET_CHECK_MS = 10_000;

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}

function quietly(fn: () => void): void {
  try {
    fn();
  } catch {
    /* stopping goes on */
  }
}

function inodeOf(file: string): number {
  try {
    return fs.statSync(file).ino;
  } catch {
    return -1;
  }
}
