/**
 * Start a recall server for next time: what the thin client does after it answered a call itself
 * because none was running.
 */
import fs from 'node:fs';
import type { Env } from '../sources/recall-server/index.js';

/**
 * Start a server for next time (detached); a spawn lock keeps concurrent first calls from starting
 * several. child_process is loaded here only: a call the server answers never needs it.
 */
export async function startServer(entry: string, socket: string, env: Env): Promise<void> {
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
    // The root folder as working directory: a long-lived server must pin no project folder or mount.
    const child = spawn(process.execPath, [entry, '--socket', socket], {
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: serverEnv(env),
    });
    child.on('error', () => undefined);
    child.unref();
    // The lock stays until the server listens or 10 s passed: removing it at spawn let a call
    // arriving before the bind start a second server.
  } catch {
    /* next time, then */
  }
}

/**
 * The server's environment: the caller's, with the CA bundle the hook command kept from the hook's
 * node (RECALL_EXTRA_CA_CERTS: scripts/hook.sh, or the command's own assignments, harness-config.ts
 * hookCommand) given back as NODE_EXTRA_CA_CERTS: the server may reach a team store over TLS. The
 * command sets both variables empty when the user has no bundle: an empty one is left out, so the
 * server's environment is the user's.
 */
export function serverEnv(env: Env): Env {
  const { RECALL_EXTRA_CA_CERTS: kept, NODE_EXTRA_CA_CERTS: own, ...rest } = env;
  const ca = own || kept;
  return ca ? { ...rest, NODE_EXTRA_CA_CERTS: ca } : rest;
}
