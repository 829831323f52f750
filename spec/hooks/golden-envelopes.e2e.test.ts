/**
 * Golden envelopes: the exact stdout of each built hook entry (`node dist/hooks/<name>.js`) for each
 * harness, on a fixed small KB and fixed stdin, compared byte for byte and field by field with the
 * files in spec/golden/hooks/. One golden per (hook, harness) where notes are injected, and one where
 * the hook has nothing to say. Each case runs twice, in the hook's own process and through a running
 * recall server: both paths must print the same bytes. `RECALL_UPDATE_GOLDEN=1` rewrites the files
 * (review the diff).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { waitFor } from '../helpers/wait.js';
import { ask } from '../../sources/recall-server/ask.js';
import { PROTOCOL_VERSION, serverSocketPath } from '../../sources/recall-server/protocol.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const goldenDir = path.join(repo, 'spec', 'golden', 'hooks');
const update = process.env['RECALL_UPDATE_GOLDEN'] === '1';

type HarnessName = 'claude' | 'codex' | 'copilot';
type Case = 'inject' | 'empty';
/** In the hook's own process (the server switched off), or answered by a recall server already running. */
type Via = 'in-process' | 'server';

const HARNESS_NAMES: readonly HarnessName[] = ['claude', 'codex', 'copilot'];
const HOOK_NAMES = ['session-start', 'user-prompt-submit', 'subagent-start', 'pre-tool-use'] as const;
type HookName = (typeof HOOK_NAMES)[number];

let kb: TempKb;
/** A project folder with a fixed name: the session-start query is built from it. */
let project: string;
/** A project folder whose name matches no note. */
let otherProject: string;

beforeAll(() => {
  kb = tempKb();
  kb.write(
    'documents/pool.md',
    noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'use one engine per test session and roll back'),
  );
  kb.write('documents/idle.md', noteText('lrn-idle', 'postgres idle transactions hold the pool', 'close transactions before slow work'));
  kb.write('documents/webhook.md', noteText('lrn-webhook', 'stripe webhook idempotency', 'store event ids under a unique constraint'));
  project = path.join(path.dirname(kb.root), 'postgres');
  otherProject = path.join(path.dirname(kb.root), 'zebra');
  fs.mkdirSync(project);
  fs.mkdirSync(otherProject);
});
afterAll(() => kb?.cleanup());

/** The harness's hook JSON for a case: what the harness would send on stdin. */
function stdinFor(hook: HookName, harness: HarnessName, c: Case): string {
  const cwd = c === 'inject' ? project : otherProject;
  const prompt = c === 'inject' ? 'postgres connection pool exhausted in tests' : 'tune the zebra crossing lights at dusk';
  // A call that only looks. (The notes here name no command or config key a call could touch, so
  // the tool-call hook's injecting envelope is checked in pre-tool-use.e2e.test.ts instead.)
  const command = 'ls -la';
  if (hook === 'pre-tool-use') {
    if (harness === 'copilot')
      return JSON.stringify({ sessionId: `s-${c}`, timestamp: 1, cwd, toolName: 'bash', toolArgs: JSON.stringify({ command }) });
    const codex = harness === 'codex' ? { turn_id: 't1', model: 'gpt-5', tool_use_id: 'call-1' } : {};
    return JSON.stringify({
      session_id: `s-${c}`,
      transcript_path: null,
      cwd,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      ...codex,
    });
  }
  if (harness === 'copilot') {
    if (hook === 'session-start') return JSON.stringify({ sessionId: 's-1', timestamp: 1, cwd, source: 'startup' });
    if (hook === 'user-prompt-submit') return JSON.stringify({ sessionId: `s-${c}`, timestamp: 1, cwd, prompt, transformedPrompt: prompt });
    return JSON.stringify({ sessionId: 's-1', timestamp: 1, cwd, agentName: 'reviewer', agentDescription: prompt });
  }
  const base = { session_id: `s-${c}`, transcript_path: null, cwd, ...(harness === 'codex' ? { turn_id: 't1', model: 'gpt-5' } : {}) };
  if (hook === 'session-start') return JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' });
  if (hook === 'user-prompt-submit') return JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt });
  return JSON.stringify({ ...base, hook_event_name: 'SubagentStart', agent_id: 'a1', agent_type: 'code-reviewer', prompt });
}

/**
 * Hook and recall requests a running server has answered. The bounds only end a hung wait: on a
 * loaded machine (a CI runner, jest's other workers) a server may take seconds to answer.
 */
async function served(socket: string): Promise<number> {
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 15_000, Date.now() + 20_000);
  if ('failed' in out || !out.answer.ok || !('status' in out.answer)) throw new Error(`recall server gave no status`);
  return out.answer.status.requests;
}

/** Start a recall server for the state dir of `env` and wait until it answers. */
async function startServer(env: Record<string, string>): Promise<{ socket: string; stop: () => Promise<void> }> {
  const socket = serverSocketPath(env);
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const child = spawn(process.execPath, [path.join(repo, 'dist', 'bundle', 'server.mjs'), '--socket', socket], { env, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Stopped and gone, so that the temp folders it wrote in can be removed.
  const stop = (): Promise<void> => {
    child.kill();
    return exited;
  };
  if (await waitFor(async () => fs.existsSync(socket) && (await served(socket).catch(() => -1)) === 0, 60_000, 50)) return { socket, stop };
  await stop();
  throw new Error('recall server did not start');
}

async function runEntry(hook: HookName, harness: HarnessName, c: Case, via: Via): Promise<{ code: number | null; stdout: string }> {
  const state = fs.mkdtempSync(path.join(path.dirname(kb.root), `state-${hook}-${harness}-${c}-`));
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: state,
    REFLECT_STATE_DIR: state,
    GLOBAL_LEARNINGS_PATH: kb.root,
    REFLECT_HARNESS: harness,
    ...driverEnv(),
    ...(via === 'in-process' ? { RECALL_NO_SERVER: '1' } : {}),
  };
  const server = via === 'server' ? await startServer(env) : null;
  try {
    const r = spawnSync(process.execPath, [path.join(repo, 'dist', 'hooks', `${hook}.js`)], {
      input: stdinFor(hook, harness, c),
      env,
      cwd: c === 'inject' ? project : otherProject,
      encoding: 'utf8',
      timeout: 30_000,
    });
    // Through the server means answered by it, not by a fallback in the hook's own process.
    if (server) expect(await served(server.socket)).toBe(1);
    return { code: r.status, stdout: r.stdout };
  } finally {
    await server?.stop();
  }
}

describe('golden hook envelopes', () => {
  for (const hook of HOOK_NAMES) {
    for (const harness of HARNESS_NAMES) {
      for (const [c, via] of [...(['inject', 'empty'] as const)].flatMap((k) =>
        (['in-process', 'server'] as const).map((v) => [k, v] as const),
      )) {
        if (hook === 'pre-tool-use' && c === 'inject') continue;
        it(`${hook} on ${harness} (${c}, ${via})`, async () => {
          const out = await runEntry(hook, harness, c, via);
          expect(out.code).toBe(0);
          const file = path.join(goldenDir, `${hook}.${harness}.${c}.json`);
          if (update && via === 'in-process') {
            fs.mkdirSync(goldenDir, { recursive: true });
            fs.writeFileSync(file, out.stdout);
          }
          const golden = fs.readFileSync(file, 'utf8');
          // Field by field first (a readable diff), then byte for byte (key order, escapes, newline).
          expect(JSON.parse(out.stdout)).toEqual(JSON.parse(golden));
          expect(out.stdout).toBe(golden);
          // A server's start and the hook's run each wait for events; this only ends a hung test.
        }, 120_000);
      }
    }
  }
});

describe('the goldens say what they are meant to', () => {
  const read = (hook: HookName, harness: HarnessName, c: Case): Record<string, unknown> =>
    JSON.parse(fs.readFileSync(path.join(goldenDir, `${hook}.${harness}.${c}.json`), 'utf8')) as Record<string, unknown>;
  const events: Record<HookName, string> = {
    'session-start': 'SessionStart',
    'user-prompt-submit': 'UserPromptSubmit',
    'subagent-start': 'SubagentStart',
    'pre-tool-use': 'PreToolUse',
  };

  it('injects the pool note, in the harness shape, on every inject case', () => {
    for (const hook of HOOK_NAMES.filter((h) => h !== 'pre-tool-use')) {
      for (const harness of HARNESS_NAMES) {
        const e = read(hook, harness, 'inject');
        if (harness === 'copilot' && hook === 'user-prompt-submit') {
          expect(Object.keys(e)).toEqual(['modifiedTransformedPrompt']);
          expect(e['modifiedTransformedPrompt']).toMatch(/^postgres connection pool exhausted in tests\n\n<recall-notes[\s\S]*lrn-pool/);
        } else if (harness === 'copilot') {
          expect(Object.keys(e)).toEqual(['additionalContext']);
          expect(e['additionalContext']).toMatch(/^<recall-notes[\s\S]*lrn-pool/);
        } else {
          const out = e['hookSpecificOutput'] as Record<string, unknown>;
          expect(Object.keys(e)).toEqual(['hookSpecificOutput']);
          expect(out['hookEventName']).toBe(events[hook]);
          expect(out['additionalContext']).toMatch(/^<recall-notes[\s\S]*lrn-pool/);
          expect(out['additionalContext']).not.toMatch(/lrn-webhook/);
        }
      }
    }
  });

  it('injects nothing, in the harness shape, on every empty case', () => {
    for (const hook of HOOK_NAMES) {
      for (const harness of HARNESS_NAMES) {
        const e = read(hook, harness, 'empty');
        if (harness === 'copilot' && hook === 'user-prompt-submit') expect(e).toEqual({});
        else if (harness === 'copilot') expect(e).toEqual({ additionalContext: '' });
        else expect(e).toEqual({ hookSpecificOutput: { hookEventName: events[hook], additionalContext: '' } });
      }
    }
  });
});
