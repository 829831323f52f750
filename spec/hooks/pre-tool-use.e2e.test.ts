/**
 * The PreToolUse hook run as the harnesses run it (the built entry, real hook JSON on stdin) over a
 * Claude Code memory folder read zero-config: the pnpm rule in front of an `npm install`, once per
 * session and never after the prompt hook gave it, nothing for calls that only look, never a
 * decision on the call, one envelope whatever comes in, switched off by RECALL_PRE_TOOL_USE=0, and
 * the call recorded scrubbed.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { RECALL_BIN, envelope, runHook, type Out } from './helpers.js';
import { driverEnv } from '../helpers/driver.js';
import { recordInjected } from '../../sinks/logs/index.js';
import { sessionKey } from '../../core/session-key.js';
import { processStart } from '../../sinks/logs/file-lock.js';
import { sessionFile } from '../../sinks/logs/session-injected.js';

let base: string;
let home: string;
let state: string;
let project: string;

const PNPM = `---
name: use-pnpm
description: This repo uses pnpm workspaces; never run npm or yarn, they write a second lockfile
metadata:
  type: feedback
---
Use pnpm for every install: \`pnpm install\`, \`pnpm add zod --filter @acme/contracts\`. Never \`npm install\` or \`yarn add\`.

**How to apply:** whenever adding or updating a dependency, use pnpm with \`--filter\` for the workspace package.
`;
const DEPLOY = `---
name: staging-readonly-friday
description: Staging is read-only on Fridays; kubectl apply to the staging context is refused by policy
metadata:
  type: project
---
No \`kubectl apply\` against staging on Fridays.
`;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-pretool-'));
  home = path.join(base, 'home');
  state = path.join(base, 'state');
  project = path.join(base, 'shop');
  fs.mkdirSync(project, { recursive: true });
  spawnSync('git', ['init', '-q'], { cwd: project });
  // Claude Code keeps a project's memory under ~/.claude/projects/<project path, / and . as ->/memory.
  const mem = path.join(home, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
  fs.mkdirSync(mem, { recursive: true });
  fs.writeFileSync(
    path.join(mem, 'MEMORY.md'),
    '- [Use pnpm](feedback_pnpm.md) — pnpm only\n- [Staging](project_staging.md) — read-only Fridays\n',
  );
  fs.writeFileSync(path.join(mem, 'feedback_pnpm.md'), PNPM);
  fs.writeFileSync(path.join(mem, 'project_staging.md'), DEPLOY);
});
afterAll(() => {
  spawnSync(process.execPath, [RECALL_BIN, 'daemon', 'stop'], { env: env(), encoding: 'utf8' });
  fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '', HOME: home, REFLECT_STATE_DIR: state, CLAUDE_PROJECT_DIR: project, ...driverEnv(), ...extra };
}

const stdin = (session: string, tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: session,
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    ...extra,
  });

/** The context of a PreToolUse envelope, after checking it carries context only (never a decision). */
function actionContext(out: Out): string {
  const e = envelope(out);
  expect(Object.keys(e)).toEqual(['hookSpecificOutput']);
  const inner = e['hookSpecificOutput'] as Record<string, unknown>;
  expect(Object.keys(inner).sort()).toEqual(['additionalContext', 'hookEventName']);
  expect(inner['hookEventName']).toBe('PreToolUse');
  const ctx = inner['additionalContext'] as string;
  if (ctx !== '') expect(ctx).toMatch(/^<recall-notes>\n[\s\S]*\n<\/recall-notes>$/);
  return ctx;
}

const bash = (session: string, command: string, e = env()) => runHook('pre-tool-use', stdin(session, 'Bash', { command }), e, project);

describe('pre-tool-use hook', () => {
  it('puts the pnpm rule memory in front of `npm install`, once per session', () => {
    const first = actionContext(bash('s-once', 'npm install zod@^3.24.1'));
    expect(first).toContain('**[use-pnpm]**');
    expect(first).not.toContain('staging-readonly-friday');
    expect(actionContext(bash('s-once', 'npm i zod'))).toBe('');
    // Another session is given it again.
    expect(actionContext(bash('s-other', 'npm i zod'))).toContain('**[use-pnpm]**');
  });

  it('does not repeat a learning the prompt hook already gave in the session', () => {
    expect(recordInjected(state, 's-prompted', ['use-pnpm'])).toBe(true);
    expect(actionContext(bash('s-prompted', 'npm install zod'))).toBe('');
    const line = fs
      .readFileSync(path.join(state, 'recall_log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['hook'] === 'pre-tool-use' && l['session'] === sessionKey('s-prompted'));
    expect(line).toMatchObject({ injected: [], deduped: ['use-pnpm'], over_budget: [] });
  });

  it('gives nothing for calls that only look', () => {
    for (const command of ['ls -la', 'git status', 'cat package.json']) expect(actionContext(bash('s-look', command))).toBe('');
    expect(
      actionContext(runHook('pre-tool-use', stdin('s-look', 'Read', { file_path: path.join(project, 'README.md') }), env(), project)),
    ).toBe('');
  });

  it('answers one empty envelope, exit 0, for broken input', () => {
    for (const input of ['', 'not json', '[1,2]', JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: 42 })]) {
      expect(actionContext(runHook('pre-tool-use', input, env(), project))).toBe('');
    }
  });

  it('is off with RECALL_PRE_TOOL_USE=0 and with `pre_tool_use = false` in recall.toml', () => {
    expect(actionContext(bash('s-off', 'npm install zod', env({ RECALL_PRE_TOOL_USE: '0' })))).toBe('');
    const toml = path.join(base, 'recall.toml');
    fs.writeFileSync(toml, 'pre_tool_use = false\n');
    expect(actionContext(bash('s-off-file', 'npm install zod', env({ RECALL_CONFIG: toml })))).toBe('');
    expect(actionContext(bash('s-on', 'npm install zod'))).toContain('**[use-pnpm]**');
  });

  it("answers Copilot's preToolUse (toolName, toolArgs as JSON text) with a top-level additionalContext", () => {
    const input = JSON.stringify({
      sessionId: 's-copilot',
      timestamp: 1,
      cwd: project,
      toolName: 'bash',
      toolArgs: '{"command":"npm install zod"}',
    });
    const e = envelope(runHook('pre-tool-use', input, env({ REFLECT_HARNESS: 'copilot' }), project));
    expect(Object.keys(e)).toEqual(['additionalContext']);
    expect(e['additionalContext']).toContain('**[use-pnpm]**');
  });

  it('records the call it answered, with the secrets in its command scrubbed', () => {
    const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    actionContext(bash('s-log', `GITHUB_TOKEN=${token} npm install zod --registry https://npm.pkg.github.com`));
    const log = fs.readFileSync(path.join(state, 'recall_log.jsonl'), 'utf8');
    expect(log).not.toContain(token);
    const line = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['kind'] === 'hook' && l['hook'] === 'pre-tool-use' && l['session'] === sessionKey('s-log'));
    expect(line).toBeDefined();
    expect(line!['query']).toMatch(/^Bash: .*npm install zod/);
    expect((line!['injected'] as { id: string }[]).map((n) => n.id)).toEqual(['use-pnpm']);
  });

  it('`recall trace --tool-call -` shows what the hook would give for a call, and why, with the call scrubbed', () => {
    const token = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const input = stdin('s-trace', 'Bash', { command: `NPM_TOKEN=${token} npm install zod` });
    const r = spawnSync(process.execPath, [RECALL_BIN, 'trace', '--tool-call', '-'], {
      input,
      env: env(),
      cwd: project,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^tool call {3}Bash: .*npm install zod/m);
    expect(r.stdout).toMatch(/^given {7}use-pnpm {2}\d+\.\d\d {2}command:npm install/m);
    expect(r.stdout).not.toContain(token);
    // A trace records nothing: the session may still be given the note.
    expect(actionContext(bash('s-trace', 'npm install zod'))).toContain('**[use-pnpm]**');
  });

  it('`recall trace --tool-call --kb DIR` reads that KB; the trace and the log show the tokens that matched', () => {
    const other = path.join(base, 'gateway-kb');
    fs.mkdirSync(path.join(other, 'documents'), { recursive: true });
    fs.writeFileSync(
      path.join(other, 'documents', 'gateway.md'),
      '---\nid: lrn-gateway-timeout\ntitle: "Raising proxy_read_timeout hides a slow upstream"\n' +
        'key_insight: "Fix the upstream; a longer proxy_read_timeout only delays the 504."\n---\nBody.\n',
    );
    const edit = {
      file_path: path.join(project, 'deploy', 'gateway.conf'),
      old_string: 'proxy_read_timeout 30s;',
      new_string: 'proxy_read_timeout 300s;',
    };
    const r = spawnSync(process.execPath, [RECALL_BIN, 'trace', '--tool-call', '-', '--kb', other], {
      input: stdin('s-kb', 'Edit', edit),
      env: env(),
      cwd: project,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(0);
    // The evidence's label is recall's own word: "token:" is not a credential's name to hide.
    expect(r.stdout).toMatch(/^given {7}lrn-gateway-timeout {2}\d+\.\d\d {2}.*token:proxy_read_timeout/m);
    expect(r.stdout.split('\n').find((l) => l.startsWith('given'))).not.toContain('REDACTED');
    // The hook over that KB logs the same evidence.
    const hook = runHook('pre-tool-use', stdin('s-kb', 'Edit', edit), env({ GLOBAL_LEARNINGS_PATH: other }), project);
    expect(actionContext(hook)).toContain('**[lrn-gateway-timeout]**');
    const line = fs
      .readFileSync(path.join(state, 'recall_log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind?: string; session?: string; matched?: { id: string; why: string[] }[] })
      .find((l) => l.kind === 'hook' && l.session === sessionKey('s-kb'));
    expect(line?.matched?.find((m) => m.id === 'lrn-gateway-timeout')?.why).toContain('token:proxy_read_timeout');
  });

  it("answers with the learning inside its deadline while another process holds the session's lock, and logs what it went without", async () => {
    // A live holder (a hook of the same session stopped mid-update): never taken as stale, only waited for.
    const holder = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => holder.once('spawn', resolve));
      const lock = `${sessionFile(state, 's-held')}.lock`;
      fs.mkdirSync(path.dirname(lock), { recursive: true });
      fs.writeFileSync(lock, `${holder.pid} ${os.hostname()} ${processStart(holder.pid!)}`);
      // The wait for the lock blocks the hook's thread: before it was bounded by the deadline (2 s),
      // the hook waited 3 s and the harness got an empty answer.
      expect(actionContext(bash('s-held', 'npm install zod'))).toContain('**[use-pnpm]**');
      const line = fs
        .readFileSync(path.join(state, 'recall_log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['hook'] === 'pre-tool-use' && l['session'] === sessionKey('s-held'));
      expect(line).toMatchObject({ degraded: ['session-set:error'] });
    } finally {
      holder.kill();
    }
  });

  it('`recall replay` matches the logged commands again and compares what they matched', () => {
    actionContext(bash('s-replay', 'yarn add zod'));
    const r = spawnSync(process.execPath, [RECALL_BIN, 'replay', '--json'], {
      env: env(),
      cwd: project,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(0);
    const diffs = (
      JSON.parse(r.stdout) as { diffs: { caller: string; query: string; before: string[]; after: string[]; changed: boolean }[] }
    ).diffs;
    const yarn = diffs.find((d) => d.caller === 'pre-tool-use' && d.query.endsWith('yarn add zod'));
    expect(yarn).toMatchObject({ before: ['use-pnpm'], after: ['use-pnpm'], changed: false });
  });
});
