/**
 * The few places for hooks that run in their own process because the recall server could not take
 * them. Every such hook loads the whole pipeline and runs it on the same cores as the server: when
 * 200 hooks fire at once and the server is slow to accept, letting each of them fall back would
 * multiply the load it was too slow for. So at most IN_PROCESS_SLOTS run in-process at once per
 * state dir (a lock file each, `inproc-<n>.lock` in the server's 0700 run folder); a hook that finds
 * none free keeps waiting for the server (which queues it and answers before its deadline) or, with
 * no server at all, answers with an empty context and says why in its log. Node built-ins only: the
 * thin client loads this.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openForeignFolder } from '../io/private-fs.js';

/** In-process fallbacks at once: one per core (at least 2), as many as can run without slowing each other. */
export const IN_PROCESS_SLOTS = Math.max(2, os.availableParallelism());
/**
 * A slot file older than this was left by a killed hook (no hook runs longer than its deadline,
 * at most 120 s, plus its last-resort slack).
 */
const STALE_SLOT_MS = 130_000;

export interface Slot {
  release(): void;
}

/** A taken slot; 'none' when all are taken; 'unbounded' when the folder cannot hold slots (the hook runs anyway). */
export type SlotOutcome = Slot | 'none' | 'unbounded';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a slot file was left by a process that is gone (or long ago). */
function abandoned(file: string): boolean {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return !Number.isInteger(pid) || pid <= 0 || !alive(pid) || Date.now() - fs.statSync(file).mtimeMs > STALE_SLOT_MS;
  } catch {
    return false;
  }
}

function claim(file: string): Slot {
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    try {
      if (Number(fs.readFileSync(file, 'utf8').trim()) === process.pid) fs.rmSync(file, { force: true });
    } catch {
      /* already gone */
    }
  };
  process.once('exit', release);
  return { release };
}

/** Take one of the in-process places of the run folder `dir`. Never throws. */
export function takeFallbackSlot(dir: string, slots = IN_PROCESS_SLOTS): SlotOutcome {
  try {
    // Never made in a folder of another user that others may write in (a shared state dir).
    if (openForeignFolder(path.dirname(dir))) return 'unbounded';
    if (!fs.existsSync(dir)) fs.mkdirSync(dir, { mode: 0o700 });
  } catch {
    return 'unbounded';
  }
  for (let i = 0; i < slots; i += 1) {
    const file = path.join(dir, `inproc-${i}.lock`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = fs.openSync(file, 'wx', 0o600);
        try {
          fs.writeSync(fd, String(process.pid));
        } finally {
          fs.closeSync(fd);
        }
        return claim(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return 'unbounded';
        if (attempt > 0 || !abandoned(file)) break;
        fs.rmSync(file, { force: true });
      }
    }
  }
  return 'none';
}
