/**
 * The prompt hook's record of what it injected waits for the session's pending-verdict lock no
 * longer than its deadline leaves: the wait blocks the thread, the deadline's timer with it, and it
 * comes after the session-set claim, which may have used all of it.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordPromptEvent, type PromptEvent } from '../../../hooks/usage/index.js';
import type { HookContext } from '../../../hooks/runtime.js';
import { pendingFile } from '../../../sinks/hook-events/index.js';
import { lockOwnerText } from '../../../sinks/logs/file-lock.js';
import { note } from '../../helpers/notes.js';
import { scored } from '../../operators/states.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('recordPromptEvent under a held pending-verdict lock', () => {
  it('waits no longer than what is left of the deadline', () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'pending-lock-'));
    dirs.push(state);
    const transcript = path.join(state, 'transcript.jsonl');
    fs.writeFileSync(transcript, '{"type":"user"}\n');
    const lock = `${pendingFile(state, 's-held')}.lock`;
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    // This process as the owner: alive, so the lock is waited for, never taken as stale.
    fs.writeFileSync(lock, lockOwnerText());
    const now = Date.now();
    const ctx = { stateDir: state, harness: 'claude', now: Date.now, startedMs: now, deadlineMs: now + 20 } as unknown as HookContext;
    const given = scored(note({ id: 'lrn-a', title: 'Pool size in tests' }), 0.9, 0.9);
    recordPromptEvent(ctx, {
      query: 'the pool is exhausted',
      input: { transcript_path: transcript },
      sessionId: 's-held',
      // No recall ran: no outcome and no scope (the line names no KB).
      res: { outcome: null, scope: null, refresh: null } as unknown as PromptEvent['res'],
      picked: { kept: [given], pointer: null, block: '- **[lrn-a]** Pool size in tests' },
      stages: [],
    });
    // The lock's own wait is 500 ms.
    expect(Date.now() - now).toBeLessThan(300);
  });
});
