/**
 * Binding a long-lived process (the model daemon, the recall server) to its unix socket: owner-only,
 * and taking over a socket file left behind by a dead process while never stealing one that a live
 * process still answers on.
 */
import fs from 'node:fs';
import net from 'node:net';

/** Whether something answers on the socket. */
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
    // The socket file is created owner-only: no other user may connect.
    const old = process.umask(0o177);
    try {
      server.listen(socket);
    } finally {
      process.umask(old);
    }
  });
}

/** Bind the socket; false when another live process owns it (a stale file is removed and reused). */
export async function bindSocket(server: net.Server, socket: string): Promise<boolean> {
  try {
    await listen(server, socket);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    if (await canConnect(socket)) return false;
    fs.rmSync(socket, { force: true });
    await listen(server, socket);
  }
  return true;
}
