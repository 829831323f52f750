/**
 * The hooks read their numbers through the settings reader (core/settings): defaults and ranges from
 * the settings table, none restated in a hook; a value the reader refuses is recorded in the hook's
 * log; the hook table's deadlines and budgets agree with the settings table.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { SettingsReader, numberDefault, setting } from '../../core/settings/index.js';
import { loadConfig } from '../../pipeline/config/index.js';
import type { RecallCommand, RecallSession } from '../../pipeline/run.js';
import { HOOK_TABLE, hookRow } from '../../hooks/hook-table.js';
import { runHook, type HookContext, type HookSpec } from '../../hooks/runtime.js';
import { hookCall } from '../../client/hook-call.js';
import { sessionStartRecall$ } from '../../hooks/session-start-recall.js';
import { DEADLINE_MAX_SEC, DEADLINE_MIN_SEC } from '../../io/hook-input.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hook-settings-'));
  dirs.push(d);
  return d;
};

/** A hook context over `env`, as runHook builds it. */
function contextOf(env: Record<string, string>): HookContext {
  const state = tmp();
  const full = { HOME: state, REFLECT_STATE_DIR: state, ...env };
  return {
    env: full,
    cwd: state,
    harness: 'claude',
    stateDir: state,
    config: loadConfig(full),
    deadlineMs: Date.now() + 60_000,
    startedMs: Date.now(),
    overrides: new SettingsReader(full),
    now: Date.now,
    recallIo: {},
  };
}

/** The commands SessionStart's recall asks a session for (a session that finds nothing). */
async function sessionStartCommands(ctx: HookContext): Promise<RecallCommand[]> {
  const asked: RecallCommand[] = [];
  const session = {
    config: ctx.config,
    outcome$: (cmd: RecallCommand) => {
      asked.push(cmd);
      return of({ outcome: null });
    },
    record: () => undefined,
  } as unknown as RecallSession;
  await lastValueFrom(sessionStartRecall$(ctx, {}, session, { query: 'postgres pool', tags: [] }));
  return asked;
}

describe('the hooks read their numbers through the settings reader', () => {
  it("SessionStart's recall takes its overlap gate and token budget from the settings table, its size from the hook table", async () => {
    const [probe, main] = await sessionStartCommands(contextOf({}));
    expect(probe).toMatchObject({ minOverlap: numberDefault('REFLECT_RECALL_MIN_OVERLAP'), maxTokens: 0, limit: 1 });
    expect(main).toMatchObject({
      minOverlap: numberDefault('REFLECT_RECALL_MIN_OVERLAP'),
      maxTokens: numberDefault('REFLECT_RECALL_MAX_TOKENS'),
      maxChars: hookRow('session-start').budgetChars,
    });
  });

  it('a value set is used; one out of range gives the default and a warning, as everywhere else', async () => {
    const [, set] = await sessionStartCommands(contextOf({ REFLECT_RECALL_MIN_OVERLAP: '0.35', REFLECT_RECALL_MAX_TOKENS: '400' }));
    expect(set).toMatchObject({ minOverlap: 0.35, maxTokens: 400 });
    const ctx = contextOf({ REFLECT_RECALL_MIN_OVERLAP: '7', REFLECT_RECALL_MAX_TOKENS: '2000000' });
    const [, refused] = await sessionStartCommands(ctx);
    expect(refused).toMatchObject({ minOverlap: 0.2, maxTokens: 0 });
    expect(ctx.overrides.warnings).toEqual([
      'REFLECT_RECALL_MIN_OVERLAP="7" is outside 0..1; using 0.2',
      'REFLECT_RECALL_MAX_TOKENS="2000000" is outside 0..1000000; using 0',
    ]);
  });

  it('no hook restates a default or a range: every number a hook reads is read by its setting', () => {
    const restated: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts'))
          for (const m of fs.readFileSync(p, 'utf8').matchAll(/\.num\(\s*'([A-Z0-9_]+)'/g))
            restated.push(`${path.relative(repo, p)}: ${m[1]}`);
      }
    };
    walk(path.join(repo, 'hooks'));
    expect(restated).toEqual([]);
  });

  it("records every refused setting in the hook's log, the pipeline's too (a floor of 5 does not pass unseen)", async () => {
    const state = tmp();
    let limit = 0;
    const spec: HookSpec = {
      ...hookRow('subagent-start'),
      run: (_input, ctx) => {
        limit = ctx.overrides.number('REFLECT_SUBAGENT_RECALL_LIMIT');
        return of('');
      },
    };
    const env = { HOME: state, REFLECT_STATE_DIR: state, RECALL_FLOOR_SUBAGENT: '5', REFLECT_SUBAGENT_RECALL_LIMIT: '999' };
    const out = await runHook(spec, hookCall('subagent-start', '{}', { env, cwd: state, startedMs: Date.now() }));
    expect(out.error).toBeNull();
    expect(limit).toBe(3);
    const logged = (dir: string): string =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .map((e) => (e.isDirectory() ? logged(path.join(dir, e.name)) : fs.readFileSync(path.join(dir, e.name), 'utf8')))
        .join('\n');
    const text = logged(state);
    expect(text).toContain('RECALL_FLOOR_SUBAGENT="5" is outside 0..1; using 0.5');
    expect(text).toContain('REFLECT_SUBAGENT_RECALL_LIMIT="999" is outside 1..100; using 3');
  });
});

describe('the hook table agrees with the settings table', () => {
  it("each hook's deadline default and range are its setting's", () => {
    for (const h of HOOK_TABLE) {
      expect({ hook: h.name, def: h.defaultTimeoutSec, min: DEADLINE_MIN_SEC, max: DEADLINE_MAX_SEC }).toEqual({
        hook: h.name,
        def: setting(h.timeoutEnv).def,
        min: setting(h.timeoutEnv).min,
        max: setting(h.timeoutEnv).max,
      });
    }
  });

  it("the subagent hook's budget is the default of its max-chars setting, the prompt hooks share one budget", () => {
    expect(hookRow('subagent-start').budgetChars).toBe(numberDefault('REFLECT_SUBAGENT_RECALL_MAX_CHARS'));
    expect(hookRow('session-start').budgetChars).toBe(hookRow('user-prompt-submit').budgetChars);
  });
});
