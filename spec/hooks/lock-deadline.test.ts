/**
 * A hook answers inside its deadline when a lock it takes is held by a live process: every lock
 * wait on a hook's path blocks the thread (the deadline's timer with it), so each is bounded by what
 * is left of the hook's plan, not only the session's.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { runHook } from '../../hooks/runtime.js';
import { hookCall } from '../../client/hook-call.js';
import { userPromptSubmitHook } from '../../hooks/registry.js';
import { lockOwnerText } from '../../sinks/logs/file-lock.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

const PROMPT = 'the postgres connection pool is exhausted in our tests again';

describe('prompt hook under a held recent-searches lock', () => {
  it('answers inside its deadline (the follow-up record waits no longer than the plan leaves)', async () => {
    const k = tempKb();
    kbs.push(k);
    k.write('documents/pool.md', noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'release every client in afterEach'));
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: k.state,
      REFLECT_STATE_DIR: k.state,
      GLOBAL_LEARNINGS_PATH: k.root,
      REFLECT_RECALL_TIMEOUT: '2',
      ...driverEnv(),
    };
    // Warm the index first, so the timed call is only the hook's own work.
    await runHook(
      userPromptSubmitHook,
      hookCall('user-prompt-submit', JSON.stringify({ session_id: 's-warm', prompt: PROMPT }), { env, cwd: k.root, startedMs: Date.now() }),
    );
    // A live holder of the file every session's prompt updates (this process: never taken as stale).
    const lock = path.join(k.state, 'recent-searches.json.lock');
    fs.writeFileSync(lock, lockOwnerText());
    try {
      const call = hookCall('user-prompt-submit', JSON.stringify({ session_id: 's-held', prompt: PROMPT }), {
        env,
        cwd: k.root,
        startedMs: Date.now(),
      });
      const out = await runHook(userPromptSubmitHook, call);
      expect(Date.now()).toBeLessThan(call.deadlineMs);
      expect(out.context).toContain('lrn-pool');
    } finally {
      fs.rmSync(lock, { force: true });
    }
  });
});
