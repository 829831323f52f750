/**
 * Jest global teardown: stops the recall servers this test run started. Hook and CLI tests start
 * one in each temp state dir (as a first call does for a user), and an idle server would otherwise
 * live on for REFLECT_IDLE_TIMEOUT (30 min). Only servers of this checkout, started after this jest
 * process, are stopped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bundle', 'server.mjs');

/** Start time of a process in clock ticks since boot (field 22 of /proc/PID/stat). */
function startTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

export default async function stopServers() {
  if (!fs.existsSync('/proc/self/stat')) return;
  const since = startTicks(process.pid);
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[1] === entry && startTicks(pid) >= since) process.kill(Number(pid), 'SIGTERM');
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
}
