/**
 * Running the built hook entries (`node dist/hooks/<name>.js`, built by `npm test`) as harnesses do,
 * with real hook JSON on stdin against a temp KB and state dir, and reading their one envelope.
 */
import { expect } from '@jest/globals';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const hookPath = (name: string): string => path.join(repo, 'dist', 'hooks', `${name}.js`);
export const RECALL_BIN = path.join(repo, 'dist', 'bundle', 'recall.mjs');

export type Out = { code: number | null; stdout: string; stderr: string };

export function env(k: TempKb, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: k.state,
    REFLECT_STATE_DIR: k.state,
    GLOBAL_LEARNINGS_PATH: k.root,
    ...driverEnv(),
    ...extra,
  };
}

export function runHook(name: string, stdin: string, e: NodeJS.ProcessEnv, cwd = os.tmpdir()): Out {
  const r = spawnSync(process.execPath, [hookPath(name)], { input: stdin, env: e, cwd, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function runHookAsync(name: string, stdin: string, e: NodeJS.ProcessEnv): Promise<Out> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [hookPath(name)], { env: e, cwd: os.tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** The one JSON object a hook must print; throws if stdout is anything else. */
export function envelope(out: Out): Record<string, unknown> {
  expect(out.code).toBe(0);
  const lines = out.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** The hook event each entry answers for, as Claude Code and Codex name it in the envelope. */
const EVENT_OF: Readonly<Record<string, string>> = {
  'session-start': 'SessionStart',
  'user-prompt-submit': 'UserPromptSubmit',
  'subagent-start': 'SubagentStart',
};

/**
 * The context of a Claude Code / Codex envelope (the default harness), after checking its exact shape:
 * one key `hookSpecificOutput` holding exactly the hook's event name and a string of context that is
 * empty or one whole `<recall-notes>` block, and at most a `systemMessage` for the person. Fails on a
 * missing or extra key, a wrong event name, or context that is not a string or is cut.
 */
export function claudeContext(hook: string, out: Out): string {
  const e = envelope(out);
  // Beside the context, Claude Code takes a notice for the person (a broken setup is said so).
  expect(Object.keys(e).filter((k) => k !== 'systemMessage')).toEqual(['hookSpecificOutput']);
  if ('systemMessage' in e) expect(e['systemMessage']).toEqual(expect.stringMatching(/^recall\b.{1,999}$/s));
  const inner = e['hookSpecificOutput'] as Record<string, unknown>;
  expect(Object.keys(inner).sort()).toEqual(['additionalContext', 'hookEventName']);
  expect(inner['hookEventName']).toBe(EVENT_OF[hook]);
  const ctx = inner['additionalContext'];
  if (typeof ctx !== 'string') throw new Error(`${hook}: additionalContext is ${JSON.stringify(ctx)}, not a string`);
  if (ctx !== '') expect(ctx).toMatch(/^<recall-notes>\n[\s\S]*\n<\/recall-notes>$/);
  return ctx;
}

export function context(out: Out): string {
  const e = envelope(out) as { hookSpecificOutput?: { additionalContext: string }; additionalContext?: string };
  return e.hookSpecificOutput?.additionalContext ?? e.additionalContext ?? '';
}

/** Four notes about the same problem (all clearly relevant to a prompt about it) and one that is not. */
export function kbWithPoolNotes(): TempKb {
  const k = tempKb();
  k.write(
    'documents/a.md',
    noteText('lrn-pool-tests', 'postgres connection pool exhausted in tests', 'use one engine per test session and roll back'),
  );
  k.write(
    'documents/b.md',
    noteText('lrn-pool-idle', 'postgres connection pool exhausted by idle transactions', 'close transactions before slow work'),
  );
  k.write(
    'documents/c.md',
    noteText('plain-id-pool-bouncer', 'postgres connection pool exhausted behind pgbouncer', 'size the pgbouncer pool to the server limit'),
  );
  k.write(
    'documents/d.md',
    noteText('lrn-pool-leak', 'postgres connection pool exhausted by leaked sessions', 'always close sessions in a finally block'),
  );
  k.write('documents/e.md', noteText('lrn-webhook', 'stripe webhook idempotency', 'store event ids under a unique constraint'));
  return k;
}

export function kbWithNotes(): TempKb {
  const k = tempKb();
  k.write(
    'documents/pool.md',
    noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'use one engine per test session and roll back'),
  );
  k.write(
    'documents/idle.md',
    noteText('lrn-idle', 'postgres idle in transaction blocks vacuum', 'close transactions before slow work on the pool'),
  );
  k.write(
    'documents/bouncer.md',
    noteText(
      'plain-id-bouncer',
      'pgbouncer transaction pooling breaks prepared statements',
      'disable the statement cache behind pgbouncer pool',
    ),
  );
  k.write(
    'documents/k8s.md',
    noteText('lrn-k8s', 'kubernetes liveness probe must not check postgres', 'keep database checks in readiness probes for the pool'),
  );
  k.write('documents/webhook.md', noteText('lrn-webhook', 'stripe webhook idempotency', 'store event ids under a unique constraint'));
  return k;
}
