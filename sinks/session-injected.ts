/**
 * Ids already injected into a session (`<state>/session-injected/<session>.json`:
 * {"injected": sorted ids, "ts": epoch}). Updates take an exclusive lock file, so concurrent hooks
 * of one session never lose each other's ids; the file itself is replaced atomically.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { readJson, writeFileAtomic } from './atomic-write.js';

/** A lock older than this is left over by a crashed hook. */
const STALE_LOCK_MS = 10_000;
/** Give up waiting for the lock after this long (the ids are then not recorded). */
const LOCK_WAIT_MS = 3_000;

export function sessionFile(stateDir: string, sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80);
  const name = safe === sessionId ? safe : `${safe}-${createHash('sha1').update(sessionId).digest('hex').slice(0, 8)}`;
  return path.join(stateDir, 'session-injected', `${name}.json`);
}

export function readInjected(stateDir: string, sessionId: string): Set<string> {
  const data = readJson<{ injected?: unknown }>(sessionFile(stateDir, sessionId), {});
  return new Set(Array.isArray(data?.injected) ? data.injected.map(String) : []);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Add ids to the session's set under the lock. Returns false when they could not be recorded (lock busy, state dir not writable). */
export function recordInjected(stateDir: string, sessionId: string, ids: readonly string[], nowMs = Date.now()): boolean {
  if (ids.length === 0) return true;
  const file = sessionFile(stateDir, sessionId);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch {
    return false;
  }
  const lock = `${file}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > until) return false;
      sleep(5 + Math.floor(Math.random() * 10));
    }
  }
  try {
    const set = readInjected(stateDir, sessionId);
    for (const id of ids) set.add(id);
    writeFileAtomic(file, JSON.stringify({ injected: [...set].sort(), ts: nowMs / 1000 }));
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
