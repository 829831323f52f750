/**
 * Process entry of `bin/recall`: wires the real process to the CLI and sets the exit code.
 */
import { main } from './cli.js';

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
  isTty: process.stderr.isTTY === true,
});
process.exitCode = code;
