/**
 * The last line of defence of a hook: when its call cannot even be read (here its stdin text throws
 * when touched, as a hostile runtime might), the harness still gets the empty answer of that hook in
 * its own shape (the same bytes as the empty golden envelopes), never another hook's event or another
 * harness's shape. And there is one empty envelope: the one every fallback script carries.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHook, fallbackEnvelope } from '../../hooks/answer.js';
import { HOOK_NAMES, hookRow } from '../../hooks/hook-table.js';
import { emptyEnvelope, toHookEnvelope } from '../../sinks/hook-envelope.js';
import type { HookCall } from '../../io/hook-input.js';

const goldenDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'golden', 'hooks');
const emptyGolden = (hook: string, harness: string): string =>
  fs.readFileSync(path.join(goldenDir, `${hook}.${harness}.empty.json`), 'utf8');

/** A call whose stdin text throws when read. */
function brokenCall(name: string, env: Record<string, string>): HookCall {
  const now = Date.now();
  return {
    name,
    get stdinText(): string {
      throw new Error('stdin is gone');
    },
    env,
    warnings: [],
    cwd: os.tmpdir(),
    startedMs: now,
    deadlineMs: now + 5000,
  };
}

describe('hook answer fallback', () => {
  for (const hook of HOOK_NAMES) {
    for (const harness of ['claude', 'codex', 'copilot'] as const) {
      it(`answers ${hook} on ${harness} with its own empty envelope when the hook throws`, async () => {
        const env = { HOME: os.tmpdir(), REFLECT_STATE_DIR: path.join(os.tmpdir(), 'recall-fallback-unused'), REFLECT_HARNESS: harness };
        expect(await answerHook(brokenCall(hook, env))).toBe(emptyGolden(hook, harness));
      });

      it(`has one empty envelope for ${hook} on ${harness}: the golden one, the same bytes as an empty answer`, () => {
        const event = hookRow(hook).event;
        expect(emptyEnvelope(harness, event)).toBe(emptyGolden(hook, harness));
        expect(toHookEnvelope(harness, event, '')).toBe(emptyGolden(hook, harness));
      });
    }
  }

  it('recognises Codex from the payload it read before failing', () => {
    const stdinText = JSON.stringify({ session_id: 's', turn_id: 't1', prompt: 'x' });
    expect(fallbackEnvelope({ name: 'user-prompt-submit', env: {}, stdinText })).toBe(emptyGolden('user-prompt-submit', 'codex'));
    expect(fallbackEnvelope({ name: 'subagent-start', env: {}, stdinText: 'not json' })).toBe(emptyGolden('subagent-start', 'claude'));
  });

  it('answers an empty object for a name that is no hook', async () => {
    expect(await answerHook(brokenCall('bogus', {}))).toBe('{}\n');
    expect(emptyEnvelope('copilot', undefined)).toBe('{}\n');
    expect(emptyEnvelope(undefined, undefined)).toBe('{}\n');
  });
});
