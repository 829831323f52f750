/**
 * The thin client of the recall server: what a hook or a plain `recall QUERY` runs. It loads node's
 * built-ins and the protocol only, hands the request to the server and prints the answer.
 *
 * Whenever the server cannot answer (none running, switched off with RECALL_NO_SERVER=1, a socket of
 * another user, no acceptance within RECALL_SERVER_WAIT_MS, a declined request, a dropped
 * connection) the call runs in this process exactly as it would without a server, and a missing
 * server is started for next time. A hook still prints one envelope and exits 0 whatever happens.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  PROTOCOL_VERSION,
  buildStamp,
  serverDisabled,
  serverWaitMs,
  serverSocketPath,
  stateDirOf,
  type Env,
  type ServerAnswer,
  type ServerRequest,
  ask,
  type Failure,
} from '../sources/recall-server/index.js';
import { emptyEnvelope, harnessOf } from '../sinks/hook-envelope.js';
import { COMMAND_WORDS, NOT_A_QUERY_FLAGS } from '../cli/command-words.js';
import { hookRow, isHookName } from '../hooks/hook-table.js';
import { GIVE_UP_BEFORE_MS, RUN_CUT_BEFORE_MS, type HookCall } from '../io/hook-input.js';
import { absolutePathSettings } from '../core/path-settings.js';
import { keptBy, spawnedMs, takeKeeper, tellKeeper } from './hook-keeper.js';
import { startHookCall, withStdin, type HookCallStart } from './hook-call.js';
import { takeFallbackSlot, type SlotOutcome } from './fallback-slots.js';
import { startServer } from './start-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const serverEntry = (): string => path.join(here, 'server.mjs');
/** This client's build, sent with each call: a server of another build declines and stops (see buildStamp). */
const withBuild = (): { build?: string } => {
  const build = buildStamp(serverEntry());
  return build === null ? {} : { build };
};

/** The server's answer, or why this process must run the request itself (null: the server is switched off). */
type Via = { answer: ServerAnswer & { ok: true } } | { fallback: Failure | 'declined' | 'failed'; detail: string } | null;

async function viaServer(env: Env, req: ServerRequest, answerBy: number, keepWaiting?: () => number | null): Promise<Via> {
  if (serverDisabled(env)) return null;
  const socket = serverSocketPath(env);
  const outcome = await ask(socket, req, serverWaitMs(env), answerBy, keepWaiting);
  if ('failed' in outcome) return { fallback: outcome.failed, detail: socket };
  const a = outcome.answer;
  if (a.ok) return { answer: a };
  return 'decline' in a ? { fallback: 'declined', detail: a.decline } : { fallback: 'failed', detail: a.error };
}

const WHY: Record<string, string> = {
  absent: 'no recall server running (one is started for next time)',
  foreign: 'the recall server socket or its folder is not usable by this user',
  timeout: 'the recall server did not accept the call in time',
  refused: 'the recall server connection failed',
  dropped: 'the recall server closed the connection without an answer',
  late: 'the recall server accepted the call but did not answer by the deadline',
  declined: 'the recall server declined the call',
  failed: 'the recall server failed',
};

/** One line saying why the server was not used, for the hook's log. */
function degradation(v: Exclude<Via, null | { answer: unknown }>): string {
  const what = v.fallback === 'late' ? 'no context given' : 'answered in this process';
  return `server: ${WHY[v.fallback] ?? v.fallback} (${v.detail}); ${what}`;
}

/** Lines for the hook's log, written once the envelope is out (see flushLog). */
const pending: { env: Env; hook: string; line: string }[] = [];

/** Queue a line for the hook's log in the state dir (the in-process path logs its own). */
function logLine(env: Env, hook: string, line: string): void {
  pending.push({ env, hook, line });
}

/**
 * Write the queued lines through the hook log writer (sinks/logs/breadcrumb.ts, its own bundle): scrubbed
 * like every other log line (a server's error text may quote a prompt), rotated, one line each. Run
 * after the envelope is printed, so loading the scrubber never delays the answer; never throws.
 */
async function flushLog(): Promise<void> {
  if (pending.length === 0) return;
  try {
    const { logHookLine } = (await import(pathToFileURL(path.join(here, 'hook-log.mjs')).href)) as {
      logHookLine: (stateDir: string, hook: string, message: string) => void;
    };
    for (const p of pending.splice(0)) logHookLine(stateDirOf(p.env), p.hook, p.line);
  } catch {
    /* best effort */
  }
}

/**
 * What a hook prints when it has nothing else: "nothing to add" in the shape of the harness running
 * it (an empty object, valid in every harness, for a name that is no hook).
 */
function emptyAnswer(name: string, env: Env): string {
  return emptyEnvelope(harnessOf(env), isHookName(name) ? hookRow(name).event : undefined);
}

type InProcess = (call: HookCall, io: { notice?: string }) => Promise<string>;

/** How long before giving up the client stops waiting for the server (its timer then fires first). */
const LATE_BEFORE_GIVE_UP_MS = 10;

/** Where a hook call is while the client waits, for the line it logs when it gives up. */
let waitingOn = 'reading its input';

/**
 * The hook's envelope through the server, else from this process; whether a server should be started.
 *
 * A server that is slow to accept is busy (or hung): the hook runs in this process only if one of
 * the few in-process places (fallback-slots.ts) is free, else it keeps waiting for the server, which
 * queues the call and answers before the deadline (with an empty context when it cannot run it in
 * time). With no server at all, a hook without a free place answers with an empty context. Either
 * way the reason is a line in the hook's log.
 */
async function serverOrHere(start: HookCallStart): Promise<{ envelope: string | null; start: boolean }> {
  const { env, name } = start;
  const call = await withStdin(start, process.stdin);
  const seconds = (call.deadlineMs - call.startedMs) / 1000;
  if (Date.now() >= call.deadlineMs - RUN_CUT_BEFORE_MS) {
    // A loaded machine took (nearly) the whole deadline to start this process: an answer now, empty,
    // beats a recall that can only arrive late (and that, queued on the server, slows every other hook).
    const when = Date.now() >= call.deadlineMs ? 'passed before' : 'was too near when';
    logLine(env, name, `started too late: the ${seconds} s deadline ${when} the input was read; no context given`);
    return { envelope: null, start: false };
  }
  const giveUpAt = call.deadlineMs - GIVE_UP_BEFORE_MS;
  const req: ServerRequest = { op: 'hook', v: PROTOCOL_VERSION, call, ...withBuild() };
  const slotDir = path.dirname(serverSocketPath(env));
  let slot: SlotOutcome | null = null;
  // Not accepted in time: run here if a place is free, else wait for acceptance until the client gives up.
  const keepWaiting = (): number | null => {
    slot = takeFallbackSlot(slotDir);
    return slot === 'none' ? giveUpAt : null;
  };
  waitingOn = 'the recall server';
  // Stops waiting just before the give-up timer (hookClient) fires, so the log says the server was late.
  const via = await viaServer(env, req, giveUpAt - LATE_BEFORE_GIVE_UP_MS, keepWaiting);
  if (via && 'answer' in via) return { envelope: 'envelope' in via.answer ? via.answer.envelope : null, start: false };
  if (via?.fallback === 'late') {
    // The server owns the call now: running it here too would pass the deadline and double its effects.
    logLine(env, name, degradation(via));
    return { envelope: null, start: false };
  }
  if (via) {
    // A foreign run folder is no place for slot files: the hook runs here unbounded, as it must answer.
    // (A place looked for while waiting may have come free since, if the server then dropped the call.)
    if (slot === null || (slot === 'none' && via.fallback !== 'timeout'))
      slot = via.fallback === 'foreign' ? 'unbounded' : takeFallbackSlot(slotDir);
    if (slot === 'none') {
      const why =
        via.fallback === 'timeout'
          ? `server: busy, it did not accept the call before the deadline (${via.detail}); no context given`
          : `${degradation(via).replace(/; answered in this process$/, '')}; every in-process place is taken by other hooks, no context given`;
      logLine(env, name, why);
      return { envelope: null, start: via.fallback === 'absent' };
    }
  }
  waitingOn = 'the in-process run';
  const { answerHook } = (await import(pathToFileURL(path.join(here, 'in-process.mjs')).href)) as { answerHook: InProcess };
  return {
    envelope: await answerHook(call, via ? { notice: degradation(via) } : {}),
    start: via?.fallback === 'absent',
  };
}

/**
 * Past its answer, a hook only writes its log lines (and may start a server for next time): it is
 * gone by the deadline all the same, since a harness may wait for the process to end. One that
 * answered late (a loaded machine started it late) still gets this long to say why in its log.
 */
const LOG_AFTER_LATE_ANSWER_MS = 200;

function exitByDeadline(deadlineMs: number): void {
  setTimeout(() => process.exit(0), Math.max(LOG_AFTER_LATE_ANSWER_MS, deadlineMs - Date.now()));
}

/**
 * A hook through the server, else in this process. Always prints one envelope and exits 0, inside
 * the deadline: GIVE_UP_BEFORE_MS before it the client prints the empty envelope itself, whatever the
 * server or the in-process run still does, and an error anywhere, even one thrown later by a timer
 * or a socket, prints what there is.
 */
export async function hookClient(name: string): Promise<void> {
  const keeper = takeKeeper();
  const startedMs = spawnedMs(keeper);
  process.umask(0o077);
  const env = process.env;
  let envelope = emptyAnswer(name, env);
  let printed = false;
  const print = (then: () => void): void => {
    if (printed) return;
    printed = true;
    process.stdout.on('error', () => process.exit(0));
    process.stdout.write(envelope, () => (tellKeeper(keeper), then()));
  };
  const bail = (): void => print(() => process.exit(0));
  if (!isHookName(name)) return bail();
  process.on('uncaughtException', bail);
  process.on('unhandledRejection', bail);
  let start: HookCallStart;
  try {
    start = keptBy(keeper, startHookCall(name, { env, cwd: process.cwd(), startedMs }));
  } catch {
    return bail();
  }
  // The answer goes out before the deadline whatever happens; the reason goes to the hook's log, and
  // the process is gone by the deadline even when that log is slow to write.
  const giveUp = setTimeout(
    () => {
      logLine(
        env,
        name,
        `no answer ${GIVE_UP_BEFORE_MS} ms before the ${(start.deadlineMs - startedMs) / 1000} s deadline from ${waitingOn}; no context given`,
      );
      exitByDeadline(start.deadlineMs);
      print(() => void flushLog().finally(() => process.exit(0)));
    },
    Math.max(0, start.deadlineMs - GIVE_UP_BEFORE_MS - Date.now()),
  );
  let startServerNext = false;
  try {
    const out = await serverOrHere(start);
    if (out.envelope !== null) envelope = out.envelope;
    startServerNext = out.start;
  } catch {
    /* the empty envelope stands */
  }
  clearTimeout(giveUp);
  // The answer first; a server for next time is started after it, so it never delays this hook.
  exitByDeadline(start.deadlineMs);
  print(() => {
    void flushLog().then(() => {
      if (!startServerNext) return process.exit(0);
      void startServer(serverEntry(), serverSocketPath(env), env).finally(() => process.exit(0));
    });
  });
}

/** Besides these, stdin as the query ('-') is never served: the client's stdin is not sent. */
const NOT_SERVED_FLAGS: readonly string[] = [...NOT_A_QUERY_FLAGS, '-'];

/** Whether argv is a plain `recall QUERY [options]`, the only command the server runs. */
export function plainRecall(argv: readonly string[]): boolean {
  return argv.length > 0 && !(COMMAND_WORDS as readonly string[]).includes(argv[0]!) && !argv.some((a) => NOT_SERVED_FLAGS.includes(a));
}

/** `recall ARGS` through the server when it is a plain recall, else the full CLI in this process. */
export async function cliClient(argv: string[]): Promise<void> {
  process.umask(0o077);
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  if (plainRecall(argv)) {
    const req: ServerRequest = {
      op: 'cli',
      v: PROTOCOL_VERSION,
      argv,
      env: absolutePathSettings(process.env, process.cwd()),
      cwd: process.cwd(),
      isTty: process.stderr.isTTY === true,
      ...withBuild(),
    };
    const via = await viaServer(process.env, req, Date.now() + 10 * 60_000);
    if (via && 'answer' in via && 'code' in via.answer) {
      process.stderr.write(via.answer.stderr);
      process.stdout.write(via.answer.stdout);
      process.exitCode = via.answer.code;
      return;
    }
    if (via && 'fallback' in via && via.fallback === 'absent') await startServer(serverEntry(), serverSocketPath(process.env), process.env);
  }
  const entry = path.join(here, 'recall.mjs');
  process.argv = [process.argv[0]!, entry, ...argv];
  await import(pathToFileURL(entry).href);
}

/**
 * `node client.mjs hook <name>` or `node client.mjs recall [args...]` (scripts/launch.mjs and
 * bin/recall come here): the one place `recall hook <name>` is told from the other commands.
 */
export async function clientMain(kind: string, rest: string[]): Promise<void> {
  if (kind === 'hook') return hookClient(rest[0] ?? '');
  if (rest[0] === 'hook' && rest.length === 2 && isHookName(rest[1])) return hookClient(rest[1]);
  return cliClient(rest);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await clientMain(process.argv[2] ?? '', process.argv.slice(3));
}
