/**
 * Ids already injected into a session (`<state>/session-injected/<session key>.json`, the key a hash
 * of the session id (core/session-key.ts), so no session id names a file:
 * {"injected": sorted ids, "ts": epoch}). Checking which ids are new and recording them happen
 * under one exclusive lock (claimInjected), so concurrent hooks of one session never inject the same
 * note twice nor lose each other's ids; the file itself is replaced atomically.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sessionKey } from '../../core/session-key.js';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import { LOCK_WAIT_MS, withFileLock } from './file-lock.js';

export function sessionFile(stateDir: string, sessionId: string, folder = 'session-injected'): string {
  return path.join(stateDir, folder, `${sessionKey(sessionId)}.json`);
}

export function readInjected(stateDir: string, sessionId: string): Set<string> {
  const data = readJson<{ injected?: unknown }>(sessionFile(stateDir, sessionId), {});
  return new Set(Array.isArray(data?.injected) ? data.injected.map(String) : []);
}

/**
 * Under the session's lock: read the ids already injected, let `choose` pick what to inject now
 * (given those ids), record the picked ids, and return them. Null when the lock could not be had or
 * the state dir is not writable (the caller decides without the guarantee, and says so). The wait
 * for the lock blocks the thread, the caller's timers with it: a hook with a deadline passes what is
 * left of it as `waitMs` (never more than the lock's own wait).
 */
export function claimInjected(
  stateDir: string,
  sessionId: string,
  choose: (seen: ReadonlySet<string>) => string[],
  nowMs = Date.now(),
  waitMs?: number,
): string[] | null {
  const file = sessionFile(stateDir, sessionId);
  try {
    return withFileLock(
      file,
      () => {
        const seen = readInjected(stateDir, sessionId);
        const picked = choose(seen);
        if (picked.length > 0) {
          for (const id of picked) seen.add(id);
          writeFileAtomic(file, JSON.stringify({ injected: [...seen].sort(), ts: nowMs / 1000 }));
        }
        return picked;
      },
      Math.min(waitMs ?? LOCK_WAIT_MS, LOCK_WAIT_MS),
    );
  } catch {
    return null;
  }
}

/** Add ids to the session's set under the lock. Returns false when they could not be recorded (lock busy, state dir not writable). */
export function recordInjected(stateDir: string, sessionId: string, ids: readonly string[], nowMs = Date.now()): boolean {
  if (ids.length === 0) return true;
  return claimInjected(stateDir, sessionId, () => [...ids], nowMs) !== null;
}

/**
 * Whether this session has not yet been told why recall cannot work, recording that it now is (an
 * exclusive create, so two hooks of one session never both tell). True when the mark cannot be
 * written (an unwritable state dir): telling twice beats never telling.
 */
export function claimNotice(stateDir: string, sessionId: string | null): boolean {
  if (!sessionId) return true;
  const file = sessionFile(stateDir, sessionId, 'session-notified');
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}

/**
 * Replace the session's set by `ids` (SessionStart after a /clear or a compaction: what was injected
 * before is no longer in the agent's context, so it may be given again). False when not recorded.
 */
export function resetInjected(stateDir: string, sessionId: string, ids: readonly string[], nowMs = Date.now()): boolean {
  const file = sessionFile(stateDir, sessionId);
  try {
    withFileLock(file, () => writeFileAtomic(file, JSON.stringify({ injected: [...new Set(ids)].sort(), ts: nowMs / 1000 })));
    return true;
  } catch {
    return false;
  }
}
