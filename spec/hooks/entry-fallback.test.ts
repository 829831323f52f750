/**
 * The last line of defence of a hook entry: when reading stdin or running the hook throws, the
 * harness still gets the empty answer of that hook in its own shape (the same bytes as the empty
 * golden envelopes), never another hook's event or another harness's shape.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fallbackEnvelope, hookEnvelope } from '../../hooks/entry.js';
import { HOOK_NAMES } from '../../hooks/hook-table.js';

const goldenDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'golden', 'hooks');
const emptyGolden = (hook: string, harness: string): string =>
  fs.readFileSync(path.join(goldenDir, `${hook}.${harness}.empty.json`), 'utf8');

/** A stdin whose first use throws, as a broken pipe or a hostile runtime might. */
function brokenStdin(): NodeJS.ReadStream {
  return {
    get isTTY(): boolean {
      throw new Error('stdin is gone');
    },
  } as unknown as NodeJS.ReadStream;
}

describe('hook entry fallback', () => {
  for (const hook of HOOK_NAMES) {
    for (const harness of ['claude', 'codex', 'copilot'] as const) {
      it(`answers ${hook} on ${harness} with its own empty envelope when the hook throws`, async () => {
        const env = { HOME: os.tmpdir(), REFLECT_STATE_DIR: path.join(os.tmpdir(), 'recall-fallback-unused'), REFLECT_HARNESS: harness };
        const out = await hookEnvelope(hook, { stdin: brokenStdin(), env, cwd: os.tmpdir(), startedMs: Date.now() });
        expect(out).toBe(emptyGolden(hook, harness));
      });
    }
  }

  it('recognises Codex from the payload it read before failing', () => {
    const stdin = JSON.stringify({ session_id: 's', turn_id: 't1', prompt: 'x' });
    expect(fallbackEnvelope('user-prompt-submit', {}, stdin)).toBe(emptyGolden('user-prompt-submit', 'codex'));
    expect(fallbackEnvelope('subagent-start', {}, 'not json')).toBe(emptyGolden('subagent-start', 'claude'));
  });
});
