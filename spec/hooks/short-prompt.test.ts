/**
 * A prompt under MIN_PROMPT_CHARS is too short to search for, unless it asks for a git step or a
 * kind of work: "commit this" is where a team's commit rule applies. In-process, on a temp KB.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { runHook } from '../../hooks/runtime.js';
import { hookCall } from '../../client/hook-call.js';
import { MIN_PROMPT_CHARS, userPromptSubmitHook } from '../../hooks/registry.js';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

function commitRuleKb(): TempKb {
  const k = tempKb();
  kbs.push(k);
  k.write(
    'documents/commit-format.md',
    `---
name: commit-format
description: Conventional commits scoped by platform, imperative subject under 72 chars
metadata:
  type: feedback
---
Commit messages are \`type(scope): subject\`; the Jira key goes in a footer, never on the branch name.

**How to apply:** Every time a commit is made in this repo.
`,
  );
  return k;
}

async function injected(k: TempKb, prompt: string): Promise<string> {
  const env = { PATH: process.env['PATH'] ?? '', HOME: k.state, REFLECT_STATE_DIR: k.state, GLOBAL_LEARNINGS_PATH: k.root, ...driverEnv() };
  const stdin = JSON.stringify({ session_id: `s-${prompt.length}-${Math.random()}`, prompt, hook_event_name: 'UserPromptSubmit' });
  const out = await runHook(userPromptSubmitHook, hookCall('user-prompt-submit', stdin, { env, cwd: k.root, startedMs: Date.now() }));
  const e = JSON.parse(out.envelope) as { hookSpecificOutput?: { additionalContext?: string } };
  return e.hookSpecificOutput?.additionalContext ?? '';
}

describe('a short prompt', () => {
  it('that asks for a git step gets the rule named for it', async () => {
    expect('commit this'.length).toBeLessThan(MIN_PROMPT_CHARS);
    expect(await injected(commitRuleKb(), 'commit this')).toContain('**[commit-format]**');
  });

  it('that asks for nothing gets nothing, the same KB', async () => {
    expect(await injected(commitRuleKb(), 'thanks!')).toBe('');
    expect(await injected(commitRuleKb(), 'looks good')).toBe('');
  });
});
