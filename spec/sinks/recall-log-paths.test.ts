/**
 * The recall log keeps the KB folders a recall read as they are, for `recall replay`: a temp
 * folder's random name ("/tmp/recall-readme-LgLNQD") reads as a token to the secret scrubber, which
 * cut the whole path, and replay then failed with "--kb ***REDACTED***: no such directory". The
 * request's other strings came from the user and are still scrubbed.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { logRecall } from '../../sinks/logs/index.js';
import { logHookEvent } from '../../sinks/hook-events/index.js';
import { scrub } from '../../sinks/scrub/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('recall log', () => {
  it('keeps the KB folders of the request, and scrubs its other strings', () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-log-'));
    dirs.push(state);
    const kb = '/tmp/recall-readme-LgLNQD/example-kb';
    // The path the scrubber takes for a token (it did, before the request kept its folders).
    expect(scrub(kb)).not.toBe(kb);
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const err = logRecall(
      state,
      { query: 'pool', request: { kb, kbs: [kb], query: `pool ${secret}`, tags: [] } } as unknown as Parameters<typeof logRecall>[1],
      Date.now(),
    );
    expect(err).toBeNull();
    const line = JSON.parse(fs.readFileSync(path.join(state, 'recall_log.jsonl'), 'utf8').trim()) as { request: Record<string, unknown> };
    expect(line.request['kb']).toBe(kb);
    expect(line.request['kbs']).toEqual([kb]);
    expect(String(line.request['query'])).not.toContain(secret);
  });

  it('keeps the KB folder of a hook line (recall view names the KBs by it)', () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-log-'));
    dirs.push(state);
    const kb = '/tmp/recall-readme-LgLNQD/example-kb';
    const ev = {
      hook: 'user-prompt-submit',
      harness: 'claude',
      session: 's1',
      kb,
      query: 'pool',
      injected: [],
      deduped: [],
      over_budget: [],
    };
    expect(logHookEvent(state, ev as unknown as Parameters<typeof logHookEvent>[1], Date.now())).not.toHaveProperty('error');
    const file = fs
      .readdirSync(state, { recursive: true })
      .map(String)
      .find((f) => f.endsWith('.jsonl'))!;
    expect((JSON.parse(fs.readFileSync(path.join(state, file), 'utf8').trim()) as { kb: string }).kb).toBe(kb);
  });
});
