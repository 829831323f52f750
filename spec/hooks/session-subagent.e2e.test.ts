/** The session-start and subagent-start hooks as harnesses run them (see helpers.ts). */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { noteText, type TempKb } from '../helpers/kb.js';
import { env, runHook, envelope, context, kbWithNotes } from './helpers.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

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
    expect(out).toMatch(/\nmemory: \d+ learnings?, ~\d+ tok injected(, est ~-?\d+ tok saved)?\n<\/recall-notes>$/);
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
