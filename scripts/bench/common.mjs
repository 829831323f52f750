/**
 * What the whole-process bench scripts (hook-burst.mjs, hook-ratio.mjs) share: reading their
 * `--name value` options, and waiting for a recall server to listen.
 */
import net from 'node:net';

/** The value after `--name` in argv, else the default. */
export function opt(argv, name, def) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : def;
}

/** Whether a server accepts a connection on the socket now. */
export function connects(socket) {
  return new Promise((resolve) => {
    const c = net.connect(socket);
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}
