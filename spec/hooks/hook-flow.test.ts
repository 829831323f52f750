/**
 * The hook as one cancellable flow: the deadline unsubscribes what the hook still runs (down to the
 * recall's model call), a run cut by the deadline records nothing, and what the prompt hook logs is
 * what it injected. In-process, on a temp KB; the deadline runs on virtual time, fired by the spec
 * once the recall is waiting on its model call (an event), never after a fixed sleep.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Observable, VirtualTimeScheduler } from 'rxjs';
import { runHook, type HookSpec } from '../../hooks/runtime.js';
import { hookCall } from '../../client/hook-call.js';
import { userPromptSubmitHook } from '../../hooks/registry.js';
import { readInjected } from '../../sinks/logs/session-injected.js';
import { unavailable, type ModelClient, type RerankResult } from '../../core/ports.js';
import { hookRow } from '../../hooks/hook-table.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

/** Eight notes on one problem: more relevant results than the prompt hook injects (3). */
function poolKb(): TempKb {
  const k = tempKb();
  kbs.push(k);
  for (let i = 1; i <= 8; i++)
    k.write(
      `documents/pool-${i}.md`,
      noteText(
        `lrn-pool-${i}`,
        `postgres connection pool exhausted in tests, case ${i}`,
        `variant ${i}: release every client in afterEach and cap the pool size`,
      ),
    );
  return k;
}

const envOf = (k: TempKb): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: k.state,
  REFLECT_STATE_DIR: k.state,
  GLOBAL_LEARNINGS_PATH: k.root,
  ...driverEnv(),
});

const PROMPT = 'the postgres connection pool is exhausted in our tests again';
const stdinOf = (session: string): string => JSON.stringify({ session_id: session, prompt: PROMPT, hook_event_name: 'UserPromptSubmit' });

/** A model client whose cross-encoder never answers; says when it is asked and when the call is torn down. */
function hangingReranker(): { client: ModelClient; asked: Promise<void>; tornDown: () => boolean } {
  let asked: () => void = () => undefined;
  const askedP = new Promise<void>((resolve) => (asked = resolve));
  let torn = false;
  const client: ModelClient = {
    models: { ce: 'fake-ce', embed: null },
    rerank: () =>
      new Observable<RerankResult>(() => {
        asked();
        return () => void (torn = true);
      }),
    embed: () => unavailable('no embedding model'),
    embedTexts: () => unavailable('no embedding model'),
    knn: () => unavailable('no embedding model'),
  };
  return { client, asked: askedP, tornDown: () => torn };
}

const contextOf = (envelope: string): string => {
  const e = JSON.parse(envelope) as { hookSpecificOutput?: { additionalContext?: string } };
  return e.hookSpecificOutput?.additionalContext ?? '';
};
const shownIds = (block: string): string[] => [...block.matchAll(/^- \*\*\[(.+?)\]\*\*/gm)].map((m) => m[1]!);

function recallLog(k: TempKb): Record<string, unknown>[] {
  const file = path.join(k.state, 'recall_log.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('hook deadline', () => {
  it('unsubscribes the run it cut (its teardown runs before the empty answer)', async () => {
    let torn = false;
    const scheduler = new VirtualTimeScheduler();
    const spec: HookSpec = { ...hookRow('subagent-start'), run: () => new Observable<string>(() => () => void (torn = true)) };
    const k = tempKb();
    kbs.push(k);
    const answer = runHook(spec, hookCall('subagent-start', '{}', { env: envOf(k), cwd: k.root, startedMs: Date.now() }), { scheduler });
    // The run has been subscribed (runHook got that far synchronously); only the deadline is pending.
    expect(torn).toBe(false);
    scheduler.flush();
    const out = await answer;
    expect(torn).toBe(true);
    expect(out.error).toMatch(/^deadline of \d+(\.\d+)? s passed$/);
    expect(contextOf(out.envelope)).toBe('');
  });

  it("unsubscribes the prompt hook's recall down to its model call, and nothing is recorded as injected", async () => {
    const k = poolKb();
    const models = hangingReranker();
    const scheduler = new VirtualTimeScheduler();
    const answer = runHook(
      userPromptSubmitHook,
      hookCall('user-prompt-submit', stdinOf('s-cut'), { env: envOf(k), cwd: k.root, startedMs: Date.now() }),
      {
        scheduler,
        recallIo: { models: models.client },
      },
    );
    // The recall is now waiting on the cross-encoder (its own timeout is seconds away in real time).
    await models.asked;
    expect(models.tornDown()).toBe(false);
    scheduler.flush();
    const out = await answer;
    expect(models.tornDown()).toBe(true);
    expect(contextOf(out.envelope)).toBe('');
    expect(readInjected(k.state, 's-cut').size).toBe(0);
    expect(recallLog(k).filter((l) => l['caller'] === 'user-prompt-submit' || l['kind'] === 'hook')).toEqual([]);
  });
});

describe('prompt hook bookkeeping', () => {
  it('logs, claims and records exactly the learnings it injected', async () => {
    const k = poolKb();
    const out = await runHook(
      userPromptSubmitHook,
      hookCall('user-prompt-submit', stdinOf('s-log'), { env: envOf(k), cwd: k.root, startedMs: Date.now() }),
    );
    const injected = shownIds(contextOf(out.envelope));
    expect(injected).toHaveLength(3);
    const log = recallLog(k);
    const recallLine = log.find((l) => l['caller'] === 'user-prompt-submit' && l['kind'] === undefined)!;
    expect(recallLine['ids']).toEqual(injected);
    expect(recallLine['count']).toBe(3);
    // The recall itself found more: the replay baseline keeps its ranking.
    expect((recallLine['results'] as unknown[]).length).toBeGreaterThan(3);
    const hookLine = log.find((l) => l['kind'] === 'hook')!;
    expect((hookLine['injected'] as { id: string }[]).map((n) => n.id)).toEqual(injected);
    expect([...readInjected(k.state, 's-log')].sort()).toEqual([...injected].sort());
  });
});
