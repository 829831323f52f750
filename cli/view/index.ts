/**
 * `recall view`: a local web page of what recall put in the agent's context and whether it was
 * used (sessions, notes, search with the stage timeline, totals per day), with the note actions a
 * person takes after a week of use (forget, supersede, edit how to apply), served by this process
 * on 127.0.0.1 until interrupted. It reads the user's own state only: the recall log of the state
 * dir and the sources a recall reads. Who may use it: auth.ts.
 */
import { spawn } from 'node:child_process';
import { loadConfig } from '../../pipeline/config/index.js';
import type { KbOptions } from '../../pipeline/notes/index.js';
import { UsageError } from '../../core/errors.js';
import type { CliIo } from '../shared.js';
import { startViewServer, type ViewServer } from './server.js';

export { startViewServer, tokenMatches, hostAllowed, sameOrigin, type ViewServer } from './server.js';
export { loadViewData, dailyTotals, usedShare, percentile } from './data.js';

export interface ViewOptions {
  kb: KbOptions;
  port: number;
  open: boolean;
}

/**
 * Opens the URL in the user's browser; a missing opener is said on stderr, never fatal. The URL is
 * on the opener's command line, which every local user can read in /proc while it runs: give it a
 * one-time code (ViewServer.openUrl), never the run's token.
 */
function openBrowser(url: string, io: CliIo): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => io.stderr(`recall view: could not start ${cmd}; open the URL above yourself\n`));
    child.unref();
  } catch {
    io.stderr(`recall view: could not start ${cmd}; open the URL above yourself\n`);
  }
}

/** Serves the view until SIGINT or SIGTERM; prints its URL (with the token) on stdout. */
export async function runView(opts: ViewOptions, io: CliIo): Promise<void> {
  const stateDir = loadConfig(io.env).stateDir;
  let server: ViewServer;
  try {
    server = await startViewServer({
      stateDir,
      kb: opts.kb,
      io: { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) },
      port: opts.port,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new UsageError(`--port ${opts.port}: ${code === 'EADDRINUSE' ? 'already in use' : 'not allowed'}`);
    throw err;
  }
  io.stdout(`${server.url}\n`);
  io.stderr(
    "recall view: serving on 127.0.0.1 only; the URL carries this run's token (keep it to yourself; the browser gets a one-time link). Ctrl-C stops it.\n",
  );
  if (opts.open) openBrowser(server.openUrl(), io);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
