/**
 * Process entry of `bin/recall`: wires the real process to the CLI and sets the exit code.
 */
import { main } from './cli.js';
import { terminalSafe } from '../sinks/safe-text.js';

// Whatever recall creates (index, logs, cache) is readable by the user only.
process.umask(0o077);

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  // Note text never drives the terminal: escape sequences other than colours are dropped.
  stdout: (s) => void process.stdout.write(terminalSafe(s)),
  stderr: (s) => void process.stderr.write(terminalSafe(s)),
  isTty: process.stderr.isTTY === true,
});
process.exitCode = code;
