/**
 * The thin client of the recall server: what a hook or a plain `recall QUERY` runs. It loads node's
 * built-ins and the protocol only, hands the request to the server and prints the answer.
 *
 * Whenever the server cannot answer (none running, switched off with RECALL_NO_SERVER=1, a socket of
 * another user, no acceptance within RECALL_SERVER_WAIT_MS, a declined request, a dropped
 * connection) the call runs in this process exactly as it would without a server, and a missing
 * server is started for next time. A hook still prints one envelope and exits 0 whatever happens.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ACCEPTED_LINE, GO_LINE, PROTOCOL_VERSION, checkSocketDir, checkSocketOwner, serverDisabled, serverSocketPath,
  type Env, type ServerAnswer, type ServerRequest,
} from './protocol.js';
import { hookDeadline, readHookStdin } from './client-stdin.js';

/** How long the server has to accept a request before this process runs it itself (measured: < 5 ms when idle). */
const DEFAULT_ACCEPT_MS = 200;
/** Slack after a hook's deadline for the server's own safety net to answer. */
const ANSWER_GRACE_MS = 1000;

const here = path.dirname(fileURLToPath(import.meta.url));

export type Outcome = { answer: ServerAnswer } | { failed: 'absent' | 'foreign' | 'timeout' | 'dropped' };

function acceptMs(env: Env): number {
  const n = Number((env['RECALL_SERVER_WAIT_MS'] ?? '').trim());
  return Number.isFinite(n) && n > 0 ? Math.min(n, 10_000) : DEFAULT_ACCEPT_MS;
}

/** Send one request; the server must accept it within `acceptWithinMs` and answer before `answerBy` (epoch ms). */
export function ask(socket: string, req: ServerRequest, acceptWithinMs: number, answerBy: number): Promise<Outcome> {
  try {
    // Only a socket of this user, in this user's private folder, ever sees a prompt or a note.
    checkSocketDir(socket);
    checkSocketOwner(socket);
  } catch (err) {
    return Promise.resolve({ failed: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'foreign' });
  }
  return new Promise((resolve) => {
    const conn = net.connect(socket);
    let buf = '';
    let accepted = false;
    const finish = (o: Outcome): void => {
      clearTimeout(timer);
      conn.destroy();
      resolve(o);
    };
    let timer = setTimeout(() => finish({ failed: 'timeout' }), acceptWithinMs);
    conn.setEncoding('utf8');
    conn.once('connect', () => conn.write(`${JSON.stringify(req)}\n`));
    conn.on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!accepted && line === ACCEPTED_LINE) {
          accepted = true;
          conn.write(`${GO_LINE}\n`);
          clearTimeout(timer);
          timer = setTimeout(() => finish({ failed: 'timeout' }), Math.max(0, answerBy - Date.now()));
        } else if (accepted) {
          try {
            return finish({ answer: JSON.parse(line) as ServerAnswer });
          } catch {
            return finish({ failed: 'dropped' });
          }
        }
      }
    });
    conn.once('error', (err: NodeJS.ErrnoException) => finish({ failed: accepted ? 'dropped' : ['ENOENT', 'ECONNREFUSED'].includes(err.code ?? '') ? 'absent' : 'dropped' }));
    conn.once('close', () => finish({ failed: 'dropped' }));
  });
}

/**
 * Start a server for next time (detached); a spawn lock keeps concurrent first calls from starting
 * several. child_process is loaded here only: a call the server answers never needs it.
 */
export async function startServer(socket: string, env: Env): Promise<void> {
  const entry = path.join(here, 'server.mjs');
  const lock = `${socket}.spawnlock`;
  try {
    if (!fs.existsSync(entry)) return;
    try {
      fs.writeFileSync(lock, String(Date.now()), { flag: 'wx', mode: 0o600 });
    } catch {
      // Someone is starting one; a lock older than 10 s is a leftover of a crashed start.
      if (Date.now() - fs.statSync(lock).mtimeMs < 10_000) return;
      fs.writeFileSync(lock, String(Date.now()), { mode: 0o600 });
    }
    const { spawn } = await import('node:child_process');
    // Its own run folder as working directory: a long-lived server must not pin the project folder.
    const child = spawn(process.execPath, [entry, '--socket', socket], { detached: true, stdio: 'ignore', cwd: path.dirname(socket), env: env as NodeJS.ProcessEnv });
    child.on('error', () => undefined);
    child.on('spawn', () => setTimeout(() => fs.rmSync(lock, { force: true }), 0).unref());
    child.unref();
  } catch {
    /* next time, then */
  }
}

const HOOK_EVENTS: Record<string, string> = { 'session-start': 'SessionStart', 'user-prompt-submit': 'UserPromptSubmit', 'subagent-start': 'SubagentStart' };

/** What a hook prints when even the in-process path cannot be loaded. */
function emptyEnvelope(name: string, env: Env): string {
  if ((env['REFLECT_HARNESS'] ?? '').trim().toLowerCase() === 'copilot') return '{}\n';
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: HOOK_EVENTS[name] ?? 'SessionStart', additionalContext: '' } })}\n`;
}

/** A hook through the server, else in this process. Always prints one envelope and exits 0. */
export async function hookClient(name: string): Promise<void> {
  const startedMs = Math.round(performance.timeOrigin);
  process.umask(0o077);
  const env = process.env;
  let envelope = emptyEnvelope(name, env);
  try {
    const deadline = hookDeadline(name, env, startedMs);
    const stdinText = await readHookStdin(process.stdin, deadline);
    const outcome = await viaServer(env, { op: 'hook', v: PROTOCOL_VERSION, name, stdinText, env, cwd: process.cwd(), startedMs }, deadline + ANSWER_GRACE_MS);
    if (outcome && 'envelope' in outcome) envelope = outcome.envelope;
    else {
      const { hookAnswer } = (await import(pathToFileURL(path.join(here, 'in-process.mjs')).href)) as { hookAnswer: (n: string, s: string, t: number) => Promise<string> };
      envelope = await hookAnswer(name, stdinText, startedMs);
    }
  } catch {
    /* the empty envelope stands */
  }
  process.stdout.write(envelope, () => process.exit(0));
}

/** The server's answer, or null when this process must run the request itself (starting a server when none runs). */
async function viaServer(env: Env, req: ServerRequest, answerBy: number): Promise<ServerAnswer | null> {
  if (serverDisabled(env)) return null;
  const socket = serverSocketPath(env);
  const outcome = await ask(socket, req, acceptMs(env), answerBy);
  if ('failed' in outcome) {
    if (outcome.failed === 'absent') await startServer(socket, env);
    return null;
  }
  return outcome.answer.ok ? outcome.answer : null;
}

/** Words of `recall <command>`: those never go to the server (they write, wait, or serve themselves). */
export const COMMAND_WORDS = [
  'index', 'models', 'daemon', 'hook', 'hooks', 'stages', 'trace', 'explain', 'replay', 'mcp',
  'status', 'doctor', 'add', 'supersede', 'forget', 'show', 'list', 'help', 'version', 'completion', 'team',
];
const NOT_SERVED_FLAGS = ['--help', '-h', '--version', '-V', '--get-yargs-completions', '-'];

/** Whether argv is a plain `recall QUERY [options]`, the only command the server runs. */
export function plainRecall(argv: readonly string[]): boolean {
  return argv.length > 0 && !COMMAND_WORDS.includes(argv[0]!) && !argv.some((a) => NOT_SERVED_FLAGS.includes(a));
}

/** `recall ARGS` through the server when it is a plain recall, else the full CLI in this process. */
export async function cliClient(argv: string[]): Promise<void> {
  process.umask(0o077);
  if (argv[0] === 'hook' && argv.length === 2 && argv[1]! in HOOK_EVENTS) return hookClient(argv[1]!);
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  if (plainRecall(argv)) {
    const req: ServerRequest = { op: 'cli', v: PROTOCOL_VERSION, argv, env: process.env, cwd: process.cwd(), isTty: process.stderr.isTTY === true };
    const answer = await viaServer(process.env, req, Date.now() + 10 * 60_000);
    if (answer && 'code' in answer) {
      process.stderr.write(answer.stderr);
      process.stdout.write(answer.stdout);
      process.exitCode = answer.code;
      return;
    }
  }
  const entry = path.join(here, 'recall.mjs');
  process.argv = [process.argv[0]!, entry, ...argv];
  await import(pathToFileURL(entry).href);
}

/** `node client.mjs hook <name>` or `node client.mjs recall [args...]`. */
export async function clientMain(kind: string, rest: string[]): Promise<void> {
  if (kind === 'hook') return hookClient(rest[0] ?? '');
  return cliClient(rest);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await clientMain(process.argv[2] ?? '', process.argv.slice(3));
}
