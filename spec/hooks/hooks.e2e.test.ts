/** The user-prompt-submit hook as harnesses run it (see helpers.ts). */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { noteText, type TempKb } from '../helpers/kb.js';
import { sessionFile } from '../../sinks/logs/session-injected.js';
import { RECALL_BIN, env, runHook, runHookAsync, envelope, context, kbWithPoolNotes, kbWithNotes } from './helpers.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

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
    expect(fs.existsSync(sessionFile(kb.state, 'sess-3'))).toBe(false);
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

  it('never injects a note twice in a session (any id), and never refills the place of one already given', () => {
    kb = kbWithPoolNotes();
    const ask = (prompt: string): string =>
      context(runHook('user-prompt-submit', JSON.stringify({ session_id: 'dedupe', prompt }), env(kb)));
    const ids = (text: string): string[] => [...text.matchAll(/\*\*\[([^\]]+)\]\*\*/g)].map((m) => m[1]!);
    const first = ids(ask('postgres connection pool exhausted again'));
    expect(first).toHaveLength(3);
    expect(first).not.toContain('lrn-webhook');
    // The same prompt again: its places are taken by what it was given; the fourth pool note is not moved up.
    expect(ask('postgres connection pool exhausted again')).toBe('');
    // A prompt aimed at the pool note it did not give gets that one, and none of those already given.
    const aimedAt: Record<string, string> = {
      'lrn-pool-tests': 'postgres connection pool exhausted in tests',
      'lrn-pool-idle': 'postgres connection pool exhausted by idle transactions',
      'plain-id-pool-bouncer': 'postgres connection pool exhausted behind pgbouncer',
      'lrn-pool-leak': 'postgres connection pool exhausted by leaked sessions',
    };
    const left = Object.keys(aimedAt).find((id) => !first.includes(id))!;
    const third = ids(ask(aimedAt[left]!));
    expect(third).toContain(left);
    expect(third.filter((id) => first.includes(id))).toEqual([]);
    const recorded = JSON.parse(fs.readFileSync(sessionFile(kb.state, 'dedupe'), 'utf8')) as { injected: string[] };
    expect(new Set(recorded.injected).size).toBe(recorded.injected.length);
    expect(new Set(recorded.injected)).toEqual(new Set([...first, ...third]));
  });

  it('never pads: the same prompt twice injects, the second time, nothing the first would not have ranked above the floor', () => {
    kb = kbWithNotes();
    const prompt = 'postgres connection pool exhausted in tests';
    const ask = (): string => context(runHook('user-prompt-submit', JSON.stringify({ session_id: 'twice', prompt }), env(kb)));
    const ids = (text: string): string[] => [...text.matchAll(/\*\*\[([^\]]+)\]\*\*/g)].map((m) => m[1]!);
    // What clears the prompt hook's floor for this prompt, by the CLI's own account.
    const r = spawnSync(
      process.execPath,
      [RECALL_BIN, '--kb', kb.root, prompt, '--format', 'json', '--floor', '0.3', '--no-cache', '--limit', '9'],
      { encoding: 'utf8', env: env(kb) },
    );
    const above = (JSON.parse(r.stdout) as { results: { id: string; relevance: number }[] }).results;
    expect(above.every((x) => x.relevance >= 0.3)).toBe(true);
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
    const recorded = JSON.parse(fs.readFileSync(sessionFile(kb.state, 'budget'), 'utf8')) as { injected: string[] };
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
    const recorded = (JSON.parse(fs.readFileSync(sessionFile(kb.state, 'race'), 'utf8')) as { injected: string[] }).injected;
    expect(recorded.length).toBe(new Set(recorded).size);
    expect(new Set(recorded)).toEqual(injected);
    expect(fs.readdirSync(path.join(kb.state, 'session-injected')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });
});
