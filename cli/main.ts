/**
 * Process entry of `bin/recall`: wires the real process to the CLI and sets the exit code.
 */
import { main } from './cli.js';
import { terminalSafe } from '../sinks/safe-text.js';
import { withConfigFile } from '../pipeline/config/index.js';

// Whatever recall creates (index, logs, cache) is readable by the user only.
process.umask(0o077);

// A reader that stops early (`recall … | head -2`) closes the pipe: that is the reader's choice, not
// a failure, so stop quietly with status 0 instead of dying on EPIPE with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

function readAll(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(''));
  });
}

const { env, warnings } = withConfigFile(process.env);
const code = await main({
  argv: process.argv.slice(2),
  env,
  cwd: process.cwd(),
  // Note text never drives the terminal: escape sequences other than colours are dropped.
  stdout: (s) => void process.stdout.write(terminalSafe(s)),
  stderr: (s) => void process.stderr.write(terminalSafe(s)),
  isTty: process.stderr.isTTY === true,
  readStdin: readAll,
  stdinIsTty: process.stdin.isTTY === true,
  configWarnings: warnings,
});
process.exitCode = code;
