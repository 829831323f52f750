/**
 * The hook entry points as harnesses run them: `node dist/hooks/<name>.js` (built by `npm test`)
 * with real hook JSON on stdin, against a temp KB and state dir.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const hookPath = (name: string): string => path.join(repo, 'dist', 'hooks', `${name}.js`);
const RECALL_BIN = path.join(repo, 'dist', 'bundle', 'recall.mjs');
let kb: TempKb;
afterEach(() => kb?.cleanup());

type Out = { code: number | null; stdout: string; stderr: string };

function env(k: TempKb, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: k.state,
    REFLECT_STATE_DIR: k.state,
    GLOBAL_LEARNINGS_PATH: k.root,
    ...driverEnv(),
    ...extra,
  };
}

function runHook(name: string, stdin: string, e: NodeJS.ProcessEnv, cwd = os.tmpdir()): Out {
  const r = spawnSync(process.execPath, [hookPath(name)], { input: stdin, env: e, cwd, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function runHookAsync(name: string, stdin: string, e: NodeJS.ProcessEnv): Promise<Out> {
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
function envelope(out: Out): Record<string, unknown> {
  expect(out.code).toBe(0);
  const lines = out.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

function context(out: Out): string {
  const e = envelope(out) as { hookSpecificOutput?: { additionalContext: string }; additionalContext?: string };
  return e.hookSpecificOutput?.additionalContext ?? e.additionalContext ?? '';
}

/** Four notes about the same problem (all clearly relevant to a prompt about it) and one that is not. */
function kbWithPoolNotes(): TempKb {
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

function kbWithNotes(): TempKb {
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

describe('user-prompt-submit', () => {
  it('injects up to 3 learnings for a prompt, in each harness envelope', () => {
    kb = kbWithPoolNotes();
    const stdin = JSON.stringify({
      session_id: 'sess-1',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'postgres connection pool exhausted in tests',
      cwd: kb.root,
    });
    const claude = envelope(runHook('user-prompt-submit', stdin, env(kb))) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(claude.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(claude.hookSpecificOutput.additionalContext).toMatch(
      /^<recall-notes>\nReference material[^\n]*\n\n## Prior learnings relevant to `postgres connection pool exhausted in tests` — 3 learnings/,
    );
    expect(claude.hookSpecificOutput.additionalContext).toContain('[lrn-pool-tests]');
    expect(claude.hookSpecificOutput.additionalContext).not.toContain('lrn-webhook');
    const codex = envelope(
      runHook(
        'user-prompt-submit',
        JSON.stringify({ sessionId: 'sess-2', userPrompt: 'postgres connection pool exhausted in tests' }),
        env(kb, { REFLECT_HARNESS: 'codex' }),
      ),
    );
    expect(Object.keys(codex)).toEqual(['hookSpecificOutput']);
    // Copilot ignores userPromptSubmitted output: wired there, nothing is injected or recorded.
    const copilot = envelope(
      runHook(
        'user-prompt-submit',
        JSON.stringify({ sessionId: 'sess-3', prompt: 'postgres connection pool exhausted in tests' }),
        env(kb, { REFLECT_HARNESS: 'copilot' }),
      ),
    );
    expect(copilot).toEqual({});
    expect(fs.existsSync(path.join(kb.state, 'session-injected', 'sess-3.json'))).toBe(false);
  });

  it('adds learnings to the model-facing prompt through Copilot userPromptTransformed, deduped per session', () => {
    kb = kbWithNotes();
    const payload = (prompt: string): string =>
      JSON.stringify({
        sessionId: 'cp-1',
        timestamp: 1796000000000,
        cwd: kb.root,
        prompt,
        transformedPrompt: `<current_datetime>2026-12-01</current_datetime>\n${prompt}`,
      });
    const first = envelope(
      runHook('user-prompt-submit', payload('postgres connection pool exhausted in tests'), env(kb, { REFLECT_HARNESS: 'copilot' })),
    ) as { modifiedTransformedPrompt: string };
    expect(Object.keys(first)).toEqual(['modifiedTransformedPrompt']);
    expect(first.modifiedTransformedPrompt).toMatch(
      /^<current_datetime>2026-12-01<\/current_datetime>\npostgres connection pool exhausted in tests\n\n<recall-notes>\nReference material[^\n]*\n\n## Prior learnings/,
    );
    expect(first.modifiedTransformedPrompt.endsWith('</recall-notes>')).toBe(true);
    expect(first.modifiedTransformedPrompt).toContain('[lrn-pool]');
    // The same prompt again: only learnings this session has not seen yet, then nothing at all.
    const ids = (t: string): string[] => [...t.matchAll(/\[((?:lrn|plain)-[a-z0-9-]+)\]/g)].map((m) => m[1]!);
    const seen = new Set(ids(first.modifiedTransformedPrompt));
    for (let i = 0; i < 4; i += 1) {
      const next = envelope(
        runHook('user-prompt-submit', payload('postgres connection pool exhausted in tests'), env(kb, { REFLECT_HARNESS: 'copilot' })),
      ) as { modifiedTransformedPrompt?: string };
      if (next.modifiedTransformedPrompt === undefined) {
        expect(next).toEqual({});
        return;
      }
      for (const id of ids(next.modifiedTransformedPrompt)) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
    throw new Error('the prompt never stopped receiving learnings');
  });

  it('never injects a note twice in a session (any id), and injects nothing when all were seen', () => {
    kb = kbWithPoolNotes();
    const ask = (): string =>
      context(
        runHook(
          'user-prompt-submit',
          JSON.stringify({ session_id: 'dedupe', prompt: 'postgres connection pool exhausted again' }),
          env(kb),
        ),
      );
    const ids = (text: string): string[] => [...text.matchAll(/\*\*\[([^\]]+)\]\*\*/g)].map((m) => m[1]!);
    const first = ids(ask());
    const second = ids(ask());
    expect(first).toHaveLength(3);
    expect(second).toHaveLength(1);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    expect([...first, ...second]).toContain('plain-id-pool-bouncer');
    expect([...first, ...second]).not.toContain('lrn-webhook');
    let last = 'x';
    for (let i = 0; i < 3 && last !== ''; i += 1) last = ask();
    expect(last).toBe('');
    const recorded = JSON.parse(fs.readFileSync(path.join(kb.state, 'session-injected', 'dedupe.json'), 'utf8')) as { injected: string[] };
    expect(new Set(recorded.injected).size).toBe(recorded.injected.length);
  });

  it('never pads: the same prompt twice injects, the second time, nothing the first would not have ranked above the floor', () => {
    kb = kbWithNotes();
    const prompt = 'postgres connection pool exhausted in tests';
    const ask = (): string => context(runHook('user-prompt-submit', JSON.stringify({ session_id: 'twice', prompt }), env(kb)));
    const ids = (text: string): string[] => [...text.matchAll(/\*\*\[([^\]]+)\]\*\*/g)].map((m) => m[1]!);
    // What clears the prompt hook's floor for this prompt, by the CLI's own account.
    const r = spawnSync(
      process.execPath,
      [RECALL_BIN, '--kb', kb.root, prompt, '--format', 'json', '--floor', '0.5', '--no-cache', '--limit', '9'],
      { encoding: 'utf8', env: env(kb) },
    );
    const above = (JSON.parse(r.stdout) as { results: { id: string; relevance: number }[] }).results;
    expect(above.every((x) => x.relevance >= 0.5)).toBe(true);
    const first = ids(ask());
    const second = ids(ask());
    expect(first).toContain('lrn-pool');
    expect(first).not.toContain('lrn-webhook');
    expect(first.every((id) => above.some((x) => x.id === id))).toBe(true);
    expect(second.every((id) => above.some((x) => x.id === id) && !first.includes(id))).toBe(true);
    expect(second).toEqual([]);
  });

  it('drops a learning that does not fit the 1500-character budget instead of cutting it', () => {
    kb = kbWithNotes();
    kb.write(
      'documents/huge.md',
      noteText('lrn-huge', 'postgres connection pool exhausted in tests again', 'x', {
        key_insight: `postgres connection pool ${'very long insight '.repeat(90)}`,
      }),
    );
    const text = context(
      runHook(
        'user-prompt-submit',
        JSON.stringify({ session_id: 'budget', prompt: 'postgres connection pool exhausted in tests again' }),
        env(kb),
      ),
    );
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text).not.toContain('lrn-huge');
    expect(text).not.toContain('truncated');
    const recorded = JSON.parse(fs.readFileSync(path.join(kb.state, 'session-injected', 'budget.json'), 'utf8')) as { injected: string[] };
    expect(recorded.injected).not.toContain('lrn-huge');
  });

  it('does nothing for prompts under 12 characters', () => {
    kb = kbWithNotes();
    expect(context(runHook('user-prompt-submit', JSON.stringify({ session_id: 's', prompt: 'pool issue' }), env(kb)))).toBe('');
  });

  it('records every injected id exactly once across 20 concurrent hooks of one session', async () => {
    kb = kbWithNotes();
    const prompts = [
      'postgres connection pool exhausted in tests',
      'kubernetes liveness probe postgres',
      'stripe webhook idempotency events',
      'pgbouncer prepared statements pool',
    ];
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runHookAsync('user-prompt-submit', JSON.stringify({ session_id: 'race', prompt: prompts[i % prompts.length] }), env(kb)),
      ),
    );
    const injected = new Set<string>();
    for (const o of outs) for (const m of context(o).matchAll(/\*\*\[([^\]]+)\]\*\*/g)) injected.add(m[1]!);
    const recorded = (JSON.parse(fs.readFileSync(path.join(kb.state, 'session-injected', 'race.json'), 'utf8')) as { injected: string[] })
      .injected;
    expect(recorded.length).toBe(new Set(recorded).size);
    expect(new Set(recorded)).toEqual(injected);
    expect(fs.readdirSync(path.join(kb.state, 'session-injected')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });
});

describe('session-start', () => {
  function project(k: TempKb, branch: string): string {
    const dir = path.join(path.dirname(k.root), 'billing-svc');
    fs.mkdirSync(dir, { recursive: true });
    const git = (...args: string[]): void => void spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('checkout', '-q', '-b', branch);
    git('-c', 'user.email=a@b', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'feat: postgres pool sizing for tests');
    return dir;
  }

  it('builds the query from project, branch and commits and injects the recall block with the memory footer', () => {
    kb = kbWithNotes();
    const dir = project(kb, 'feat/connection-pool');
    const out = context(
      runHook('session-start', JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', cwd: dir }), env(kb)),
    );
    // project, branch words (the feat/ prefix dropped), then the top commit tokens (ties alphabetical)
    expect(out).toMatch(/^## Prior learnings relevant to `billing-svc connection pool postgres sizing`/m);
    expect(out).toContain('[lrn-pool]');
    expect(out).toMatch(/\nmemory: \d+ learnings?, ~\d+ tok injected, est ~-?\d+ tok saved\n<\/recall-notes>$/);
    // The footer counts the block it follows (characters / 4), not the notes' whole texts.
    const inner = out.replace(/^<recall-notes>\n[^\n]*\n\n/, '').replace(/\n<\/recall-notes>$/, '');
    const blockText = inner.slice(0, inner.lastIndexOf('\nmemory:'));
    expect(inner).toContain(`memory: 1 learning, ~${Math.floor([...blockText].length / 4)} tok injected`);
    const copilot = envelope(runHook('session-start', JSON.stringify({ cwd: dir }), env(kb, { REFLECT_HARNESS: 'copilot' })));
    expect(Object.keys(copilot)).toEqual(['additionalContext']);
  });

  it('short-circuits on a fresh HIGH-confidence note (the probe)', () => {
    kb = kbWithNotes();
    const today = new Date().toISOString().slice(0, 10);
    kb.write(
      'documents/fresh.md',
      noteText('lrn-fresh', 'billing-svc connection pool sizing rule', 'size the pool per worker', { confidence: 'high', created: today }),
    );
    const dir = project(kb, 'feat/connection-pool');
    const out = context(runHook('session-start', JSON.stringify({ cwd: dir }), env(kb)));
    expect(out).toMatch(/— 1 learning,/);
    expect(out).toContain('[lrn-fresh]');
  });

  it('injects nothing when the project is the home directory', () => {
    kb = kbWithNotes();
    expect(context(runHook('session-start', JSON.stringify({ cwd: kb.state }), env(kb)))).toBe('');
  });
});

describe('subagent-start', () => {
  it('recalls for the subagent task, and REFLECT_SUBAGENT_CONTEXT replaces it', () => {
    kb = kbWithNotes();
    const stdin = JSON.stringify({
      hook_event_name: 'SubagentStart',
      agent_type: 'code-reviewer',
      agent_id: 'a1',
      cwd: '/srv/app',
      prompt: 'review the stripe webhook idempotency',
    });
    const out = envelope(runHook('subagent-start', stdin, env(kb))) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(out.hookSpecificOutput.hookEventName).toBe('SubagentStart');
    // The query is the agent's type and task: no opaque id, no folder path.
    expect(out.hookSpecificOutput.additionalContext).toMatch(
      /^## Prior learnings relevant to `code-reviewer \| review the stripe webhook idempotency`/m,
    );
    expect(out.hookSpecificOutput.additionalContext).toContain('[lrn-webhook]');
    expect(context(runHook('subagent-start', stdin, env(kb, { REFLECT_SUBAGENT_CONTEXT: '  fixed context  ' })))).toBe('fixed context');
  });

  it("takes a Claude Code subagent's task from the Task call at the end of the session transcript", () => {
    kb = kbWithNotes();
    fs.mkdirSync(kb.state, { recursive: true });
    const transcript = path.join(kb.state, 'transcript.jsonl');
    const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
    fs.writeFileSync(
      transcript,
      'x'.repeat(300 * 1024) + // an old, long history: only the tail is read
        line({ type: 'user', message: { role: 'user', content: 'check our payment handling' } }) +
        line({
          type: 'assistant',
          message: {
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                name: 'Task',
                input: { subagent_type: 'Explore', description: 'find pool settings', prompt: 'look at postgres pool size' },
              },
            ],
          },
        }) +
        line({
          type: 'assistant',
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: 'starting' },
              {
                type: 'tool_use',
                name: 'Task',
                input: {
                  subagent_type: 'code-reviewer',
                  description: 'review webhooks',
                  prompt: 'Review the stripe webhook idempotency handling',
                },
              },
            ],
          },
        }),
    );
    const stdin = JSON.stringify({
      hook_event_name: 'SubagentStart',
      session_id: 's',
      transcript_path: transcript,
      agent_id: 'a9f3',
      agent_type: 'code-reviewer',
      cwd: '/srv/app',
    });
    const ctx = context(runHook('subagent-start', stdin, env(kb)));
    expect(ctx).toMatch(
      /^## Prior learnings relevant to `code-reviewer \| review webhooks Review the stripe webhook idempotency handling`/m,
    );
    expect(ctx).toContain('[lrn-webhook]');
    // The earlier Explore call is found when that agent type starts (floor off: this checks the query,
    // and no note here is about pool size settings).
    const explore = context(
      runHook(
        'subagent-start',
        JSON.stringify({ transcript_path: transcript, agent_type: 'Explore' }),
        env(kb, { RECALL_FLOOR_SUBAGENT: '0' }),
      ),
    );
    expect(explore).toMatch(/relevant to `Explore \| find pool settings look at postgres pool size`/);
  });

  it('builds Copilot subagent queries from agentName and agentDescription', () => {
    kb = kbWithNotes();
    const stdin = JSON.stringify({
      sessionId: 's',
      cwd: '/srv/app',
      agentName: 'webhook-auditor',
      agentDisplayName: 'Webhook auditor',
      agentDescription: 'Audits stripe webhook idempotency',
    });
    const out = envelope(runHook('subagent-start', stdin, env(kb, { REFLECT_HARNESS: 'copilot' }))) as { additionalContext: string };
    expect(out.additionalContext).toMatch(
      /^## Prior learnings relevant to `webhook-auditor \| Webhook auditor \| Audits stripe webhook idempotency`/m,
    );
    expect(out.additionalContext).toContain('[lrn-webhook]');
  });

  it('keeps its output under the harness limit whatever the caller budgets', () => {
    kb = kbWithNotes();
    for (let i = 0; i < 40; i += 1) {
      kb.write(
        `documents/w${i}.md`,
        noteText(`lrn-w${i}`, `stripe webhook retry ${i}`, 'webhook idempotency detail', {
          key_insight: `stripe webhook idempotency ${i}: ${'keep the event id unique '.repeat(16)}`,
        }),
      );
    }
    const stdin = JSON.stringify({ agent_type: 'x', prompt: 'stripe webhook idempotency' });
    const big = { REFLECT_SUBAGENT_RECALL_LIMIT: '40', REFLECT_SUBAGENT_RECALL_MAX_CHARS: '500000' };
    const claude = context(runHook('subagent-start', stdin, env(kb, big)));
    expect(claude.length).toBeGreaterThan(5000);
    expect(claude.length).toBeLessThanOrEqual(9500);
    // The cut happens inside the block of recalled notes, which stays closed.
    expect(claude).toMatch(/cut to fit the harness limit on hook output\)\n<\/recall-notes>$/);
    const codex = context(runHook('subagent-start', stdin, env(kb, { ...big, REFLECT_HARNESS: 'codex' })));
    expect(codex.length).toBeLessThanOrEqual(7000);
    // The shared plugin hooks.json sets no REFLECT_HARNESS: Codex is known by its payload and PLUGIN_ROOT.
    const viaPayload = context(
      runHook('subagent-start', JSON.stringify({ agent_type: 'x', prompt: 'stripe webhook idempotency', turn_id: 't1' }), env(kb, big)),
    );
    const viaEnv = context(
      runHook('subagent-start', stdin, env(kb, { ...big, PLUGIN_ROOT: '/plugins/recall', CLAUDE_PLUGIN_ROOT: '/plugins/recall' })),
    );
    expect([viaPayload.length, viaEnv.length].every((n) => n > 5000 && n <= 7000)).toBe(true);
    // Cut between learnings: the last kept learning is whole (its "How to apply"/body line is there).
    expect(codex.split('\n- **[').length).toBeGreaterThan(2);
  });

  it('answers by its deadline with what the fast arms found when an engine hangs', () => {
    kb = kbWithNotes();
    fs.mkdirSync(path.join(kb.root, 'nano_graphrag_cache'));
    const bin = path.join(path.dirname(kb.root), 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'reflect'), '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
    const t0 = Date.now();
    const out = runHook(
      'subagent-start',
      JSON.stringify({ agent_type: 'x', prompt: 'stripe webhook idempotency' }),
      env(kb, { PATH: `${bin}:${process.env['PATH']}`, REFLECT_SUBAGENT_RECALL_TIMEOUT: '1.5' }),
    );
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(context(out)).toContain('[lrn-webhook]');
    const log = JSON.parse(fs.readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8').trim().split('\n').pop()!) as {
      degraded: string[];
    };
    expect(log.degraded).toEqual(expect.arrayContaining(['arm:vector:timeout', 'arm:graph:timeout']));
  });
});

describe('hooks never break the agent', () => {
  const cases: [string, string][] = [
    ['empty stdin', ''],
    ['not JSON', '{"prompt": "unterminated'],
    ['a JSON array', '[1, 2, 3]'],
    ['wrong types', JSON.stringify({ session_id: { a: 1 }, prompt: 12345678901234, cwd: ['x'], agent_type: null })],
    ['huge stdin', JSON.stringify({ session_id: 's', prompt: 'x'.repeat(5 * 1024 * 1024) })],
  ];
  const hooks = ['session-start', 'user-prompt-submit', 'subagent-start'];

  it.each(cases)('exit 0 with one valid envelope on %s', (_name, stdin) => {
    kb = kbWithNotes();
    for (const h of hooks) expect(typeof context(runHook(h, stdin, env(kb)))).toBe('string');
  });

  it('falls back on malformed env values, an unreadable KB and an unwritable state dir', () => {
    kb = kbWithNotes();
    let n = 0;
    // A new session each time, so earlier calls do not dedupe the note away.
    const stdinOf = (): string =>
      JSON.stringify({ session_id: `s${(n += 1)}`, prompt: 'postgres connection pool exhausted in tests', cwd: kb.root });
    const stdin = stdinOf();
    const bad = {
      REFLECT_RECALL_TIMEOUT: 'soon',
      REFLECT_SUBAGENT_RECALL_TIMEOUT: '-1',
      RECALL_TAG_ALPHA: 'lots',
      REFLECT_RECALL_MIN_OVERLAP: '7',
      REFLECT_SUBAGENT_RECALL_LIMIT: 'x',
    };
    for (const h of hooks) expect(typeof context(runHook(h, stdin, env(kb, bad)))).toBe('string');
    expect(context(runHook('user-prompt-submit', stdinOf(), env(kb, bad)))).toContain('[lrn-pool]');
    const crumb = JSON.parse(fs.readFileSync(path.join(kb.state, 'last-event.json'), 'utf8')) as {
      hook: string;
      kind: string;
      detail: string;
    };
    expect(crumb.kind).toBe('config');
    const notAKb = path.join(kb.state, 'file-not-kb');
    fs.writeFileSync(notAKb, 'x');
    for (const h of hooks) expect(context(runHook(h, stdin, env(kb, { GLOBAL_LEARNINGS_PATH: notAKb })))).toBe('');
    // A state dir that cannot be created (its parent is a file): the index lives in memory.
    const unwritable = path.join(notAKb, 'state');
    for (const h of hooks) expect(typeof context(runHook(h, stdin, env(kb, { REFLECT_STATE_DIR: unwritable })))).toBe('string');
    expect(context(runHook('user-prompt-submit', stdinOf(), env(kb, { REFLECT_STATE_DIR: unwritable })))).toContain('[lrn-pool]');
  });

  it('scrubs secrets from breadcrumbs', () => {
    kb = kbWithNotes();
    runHook(
      'user-prompt-submit',
      JSON.stringify({ prompt: 'postgres pool exhausted again' }),
      env(kb, { REFLECT_RECALL_TIMEOUT: 'token=sk-abcdefghijklmnopqrstuvwx' }),
    );
    const crumb = fs.readFileSync(path.join(kb.state, 'last-event.json'), 'utf8');
    expect(crumb).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(crumb).toContain('REDACTED');
  });
});
