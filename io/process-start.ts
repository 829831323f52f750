/**
 * When this process was started, as the harness that spawned it sees it. A hook's deadline counts
 * from there: on a loaded machine the kernel and node take seconds between the spawn and node's own
 * clock (performance.timeOrigin), and a deadline counted from node's clock ends seconds after the
 * harness expected the answer. It imports nothing of the project (the thin client bundles it).
 */
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on every Linux). */
const USER_HZ = 100;
/** Off by more than this from node's clock, the kernel's record is not believed (a clock changed, a suspend). */
const MOST_BEFORE_ORIGIN_MS = 60_000;
/** Both /proc clocks tick in hundredths of a second: the fork can seem a little after node's start. */
const TICK_SLACK_MS = 20;

/**
 * The epoch ms this process (or `pid`, its parent scripts/hook.sh) was spawned, from the kernel's
 * record on Linux: its start in /proc/PID/stat against /proc/uptime, to the hundredth of a second.
 * Elsewhere, or when that record cannot be read or believed, node's own start.
 */
export function processStartMs(pid: number | 'self' = 'self', now: number = Date.now()): number {
  const origin = Math.round(performance.timeOrigin);
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): the 22nd field,
    // starttime, is the 20th after it.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const uptimeSec = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    const started = Math.round(now - (uptimeSec - ticks / USER_HZ) * 1000);
    if (Number.isFinite(started) && started <= origin + TICK_SLACK_MS && started >= origin - MOST_BEFORE_ORIGIN_MS)
      return Math.min(started, origin);
  } catch {
    /* not Linux, or /proc not mounted */
  }
  return origin;
}
