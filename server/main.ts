/**
 * Process entry of the recall server (spawned detached by the first thin client that found none):
 *   node dist/bundle/server.mjs --socket PATH
 * The idle timeout comes from REFLECT_IDLE_TIMEOUT (environment or recall.toml); everything else
 * comes with each request.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IndexWorkers } from '../sources/index/index.js';
import { sqliteDriver } from '../sources/sqlite/index.js';
import { KbPool } from './kb-pool.js';
import { ProjectProbe } from './project-probe.js';
import { stallReadsUnder } from '../io/read-stall.js';
import { isUnder, mountPointOf } from '../io/mount-point.js';
import { serveRecall } from './server.js';
import { buildStamp } from '../sources/recall-server/index.js';
import { withConfigFile, loadConfig } from '../pipeline/config/index.js';

/** The environment with recall.toml's settings (its idle timeout may be set there); the bare environment if the file is broken. */
function settings(): Record<string, string | undefined> {
  try {
    return withConfigFile(process.env).env;
  } catch {
    return process.env;
  }
}

/**
 * The index lookup threads, loaded now in the background so that the first recall finds them ready
 * (until then lookups run in this thread). None with the WebAssembly SQLite driver: its indexes have
 * no WAL, so the threads would never be used.
 */
function lookupThreads(): IndexWorkers | null {
  try {
    if (sqliteDriver() === 'wasm') return null;
  } catch {
    return null;
  }
  // The worker entry is bundled next to this file (scripts/bundle.mjs).
  const workers = new IndexWorkers(path.join(path.dirname(fileURLToPath(import.meta.url)), 'index-worker.mjs'));
  workers.start();
  return workers;
}

// Whatever the server creates (index, logs, cache) is readable by the user only.
process.umask(0o077);
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const socket = arg('--socket');
// The specs' stand-in for a hung mount (io/read-stall.ts); the thin client never passes it.
const testStallReads = arg('--test-stall-reads') ?? null;
stallReadsUnder(testStallReads);
if (!socket) {
  process.stderr.write('recall server: --socket PATH is required\n');
  process.exitCode = 2;
} else {
  const pool = new KbPool(Date.now, lookupThreads());
  // Read now: a rebuild later changes the file, and callers of the new build are then declined.
  const own = fileURLToPath(import.meta.url);
  const build = buildStamp(own);
  const installedBuild = (): string | null => buildStamp(own);
  // The threads that check a call's project files answer before the call reads them (bundled next to this file).
  // (The seam's folder stands for a hung mount: mounts are the unit a stuck read puts out of reach.)
  const stalled = testStallReads && path.isAbsolute(testStallReads) ? path.resolve(testStallReads) : null;
  const mountOf = (p: string): string | null => (stalled && isUnder(p, stalled) ? stalled : mountPointOf(p));
  const probe = new ProjectProbe(path.join(path.dirname(fileURLToPath(import.meta.url)), 'project-probe.mjs'), { testStallReads, mountOf });
  probe.start();
  await serveRecall({ socket, idleTimeoutSec: loadConfig(settings()).idleTimeoutSec, pool, build, installedBuild, probe });
  // Stopped, or another server already owns the socket. Exit explicitly: a model-daemon connection
  // or a timer of an unfinished request must not keep it alive. process.exit waits for every thread
  // to end, and a probe thread stuck in a read of a hung mount never does: then the process ends
  // itself at once (its stuck thread alone stays, held by the kernel, until that read returns).
  if (probe.stats().stuck > 0) process.kill(process.pid, 'SIGKILL');
  process.exit(0);
}
