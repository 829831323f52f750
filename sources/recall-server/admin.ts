/**
 * `recall daemon status|stop` for the recall server (the model daemon reports itself next to it).
 * Talks to a running server only: asking for its status never starts one.
 */
import fs from 'node:fs';
import { ask } from './ask.js';
import { PROTOCOL_VERSION, serverDisabled, serverSocketPath, type Env, type ServerStatus } from './protocol.js';

const ASK_MS = 3000;

export interface ServerStatusData {
  socket: string;
  running: boolean;
  answering: boolean;
  disabled: boolean;
  status: ServerStatus | null;
  error: string | null;
}

export async function serverStatusData(env: Env): Promise<ServerStatusData> {
  const socket = serverSocketPath(env);
  const base = { socket, running: false, answering: false, disabled: serverDisabled(env), status: null, error: null };
  if (!fs.existsSync(socket)) return base;
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, ASK_MS, Date.now() + ASK_MS);
  if ('failed' in out) return { ...base, running: out.failed !== 'absent', error: `no answer (${out.failed})` };
  if (!out.answer.ok || !('status' in out.answer)) return { ...base, running: true, error: 'answered without a status' };
  return { ...base, running: true, answering: true, status: out.answer.status };
}

const mb = (bytes: number): string => `${Math.round(bytes / 1048576)} MB`;

export async function serverStatus(env: Env): Promise<string> {
  const d = await serverStatusData(env);
  const off = d.disabled ? ' (RECALL_NO_SERVER is set: calls run in their own process)' : '';
  if (!d.running) return `recall server: not running${off} (socket ${d.socket})\n`;
  if (!d.status) return `recall server: not answering (${d.error ?? 'unknown'}); socket ${d.socket}\n`;
  const s = d.status;
  const kbs = s.kbs.map(
    (k) =>
      `  KB ${k.root}: ${k.watching ? `watched (${k.dirs} folders)` : `every file compared on each call (${k.why ?? 'not watched'})`}\n`,
  );
  const l = s.lookups;
  const lookups = l
    ? `  index lookups: ${l.answered} on ${l.threads} threads (${l.ready ?? 0} ready), ${l.refused} run in the server's thread${l.lastRefusal ? ` (last: ${l.lastRefusal})` : ''}\n`
    : '';
  const a = s.admission;
  const admission = a
    ? `  admission: ${a.running} running of ${a.limit} at once, ${a.queued} waiting, ${a.shed} hooks answered empty before their deadline (server busy)\n`
    : '';
  const p = s.probe;
  const probe = p
    ? `  project files: ${p.probed} checked on ${p.threads} threads, ${p.unanswered} calls answered without their project (files not answering), ${p.stuck} reads stuck${p.disabled ? ` (off: ${p.disabled})` : ''}\n`
    : '';
  return (
    `recall server: running${off}, pid ${s.pid}, up ${s.uptimeSec} s, ${s.requests} requests, RSS ${mb(s.rssBytes)}, ` +
    `idle exit after ${s.idleTimeoutSec || 'never'}${s.idleTimeoutSec ? ' s' : ''}\n${kbs.join('')}${lookups}${admission}${probe}  socket ${d.socket}\n`
  );
}

export async function serverStop(env: Env): Promise<string> {
  const socket = serverSocketPath(env);
  if (!fs.existsSync(socket)) return 'recall server: not running\n';
  const out = await ask(socket, { op: 'shutdown', v: PROTOCOL_VERSION }, ASK_MS, Date.now() + ASK_MS);
  if (!('failed' in out)) return 'recall server: stopped\n';
  if (out.failed === 'foreign') return `recall server: ${socket} is not this user's; left alone\n`;
  fs.rmSync(socket, { force: true });
  return `recall server: was not answering (${out.failed}); removed its stale socket\n`;
}
