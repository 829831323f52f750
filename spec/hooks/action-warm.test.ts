/**
 * The tool-call hook's triggers are derived ahead of the first tool call: once a prompt (or a
 * session's start, or a subagent's) has been answered in a process that outlives the call, that
 * process starts deriving the triggers of the KBs the tool-call hook reads; never before the answer,
 * never in a process that ends with its call, never with the tool-call hook switched off.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NEVER, throwError } from 'rxjs';
import { runHook, type HookSpec } from '../../hooks/runtime.js';
import { hookCall } from '../../client/hook-call.js';
import { sessionStartHook, subagentStartHook, userPromptSubmitHook } from '../../hooks/registry.js';
import { warmActionTriggers } from '../../hooks/action-warm.js';
import { actionMatches } from '../../hooks/action-recall.js';
import { readToolCall } from '../../operators/action/index.js';
import { openSession } from '../../pipeline/run.js';
import { loadConfig } from '../../pipeline/config/index.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

const PROMPT = 'add zod to the contracts package please';

const PNPM_MEMORY = `---
name: use-pnpm
description: This repo uses pnpm workspaces; never run npm or yarn
metadata:
  type: feedback
---
Use \`pnpm add zod\`, never \`npm install zod\`.
`;

/**
 * A KB with a pnpm rule: a KB folder set in the environment, or (`memory`) the Claude Code memory
 * folder of a project that only the payload's cwd names (the hook process runs elsewhere).
 */
function setup(extra: Record<string, string> = {}, memory = false) {
  const k = tempKb();
  kbs.push(k);
  const project = path.join(k.state, 'shop');
  fs.mkdirSync(project, { recursive: true });
  if (memory) {
    // Claude Code keeps a project's memory under ~/.claude/projects/<project path, / and . as ->/memory.
    const folder = path.join(k.state, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'feedback_pnpm.md'), PNPM_MEMORY);
  } else k.write('documents/pnpm.md', noteText('lrn-pnpm', 'use pnpm, never npm install', 'Run `pnpm add zod`, never `npm install zod`.'));
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: k.state,
    REFLECT_STATE_DIR: k.state,
    ...(memory ? {} : { GLOBAL_LEARNINGS_PATH: k.root }),
    ...driverEnv(),
    ...extra,
  };
  const call = hookCall('user-prompt-submit', JSON.stringify({ session_id: 's-warm', prompt: PROMPT, cwd: project }), {
    env,
    cwd: os.tmpdir(),
    startedMs: Date.now(),
  });
  /**
   * What an `npm install zod` call is given by a process whose time is already up: only triggers
   * derived before it can give anything (a build of its own stops at once).
   */
  const givenWithNoTimeLeft = async (): Promise<string[]> => {
    const session = await openSession(
      { kb: null, global: false, allBranches: false, verbose: false },
      { env, cwd: project, now: Date.now, warn: () => {}, config: loadConfig(env) },
    );
    try {
      const action = readToolCall({ tool_name: 'Bash', tool_input: { command: 'npm install zod' } })!;
      const got = await actionMatches(session, action, project, { info: () => 1, prompt: '', stopAt: 0 });
      return got.map((m) => m.note.displayId);
    } finally {
      session.close();
    }
  };
  return { call, givenWithNoTimeLeft };
}

/** The prompt hook with its after-answer work observed: the builds it started, once it runs. */
function observed(): { spec: HookSpec; calls: Promise<Promise<void>[]>[] } {
  const calls: Promise<Promise<void>[]>[] = [];
  const spec: HookSpec = { ...userPromptSubmitHook, afterAnswer: (input, ctx) => void calls.push(warmActionTriggers(input, ctx)) };
  return { spec, calls };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('triggers derived ahead of the first tool call', () => {
  it('the hooks that come before tool calls start it', () => {
    for (const spec of [sessionStartHook, userPromptSubmitHook, subagentStartHook]) expect(spec.afterAnswer).toBeInstanceOf(Function);
  });

  it('starts once a call answered in a process that outlives it, and derives the KB the tool-call hook reads', async () => {
    const { call, givenWithNoTimeLeft } = setup();
    const { spec, calls } = observed();
    const out = await runHook(spec, call, { outlivesCall: true });
    // The answer is complete before anything of the build runs.
    expect(out.error).toBeNull();
    expect(calls).toHaveLength(0);
    await nextTurn();
    expect(calls).toHaveLength(1);
    const builds = await calls[0]!;
    expect(builds).toHaveLength(1);
    await Promise.all(builds);
    // The tool-call hook's KB is ready: a call with no time left to derive anything is given the rule.
    expect(await givenWithNoTimeLeft()).toEqual(['lrn-pnpm']);
  });

  it("reads the project of the payload's cwd, as the tool-call hook does", async () => {
    const { call, givenWithNoTimeLeft } = setup({}, true);
    const { spec, calls } = observed();
    await runHook(spec, call, { outlivesCall: true });
    await nextTurn();
    await Promise.all(await calls[0]!);
    expect(await givenWithNoTimeLeft()).toEqual(['use-pnpm']);
  });

  it('starts after a call that was cut at its deadline or failed, too', async () => {
    for (const run of [() => NEVER, () => throwError(() => new Error('broken'))]) {
      const { call, givenWithNoTimeLeft } = setup();
      const { spec, calls } = observed();
      const out = await runHook({ ...spec, run }, { ...call, deadlineMs: Date.now() - 1 }, { outlivesCall: true });
      expect(out.error).not.toBeNull();
      await nextTurn();
      await Promise.all(await calls[0]!);
      expect(await givenWithNoTimeLeft()).toEqual(['lrn-pnpm']);
    }
  });

  it('never starts in a process that ends with its call', async () => {
    const { call, givenWithNoTimeLeft } = setup();
    const { spec, calls } = observed();
    await runHook(spec, call);
    await nextTurn();
    expect(calls).toHaveLength(0);
    expect(await givenWithNoTimeLeft()).toEqual([]);
  });

  it('starts nothing with the tool-call hook switched off', async () => {
    const { call, givenWithNoTimeLeft } = setup({ RECALL_PRE_TOOL_USE: '0' });
    const { spec, calls } = observed();
    await runHook(spec, call, { outlivesCall: true });
    await nextTurn();
    expect(await calls[0]!).toEqual([]);
    expect(await givenWithNoTimeLeft()).toEqual([]);
  });
});
