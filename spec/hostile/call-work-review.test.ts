/**
 * Hostile review of the call-work readers (operators/action/edit-work.ts, call-work.ts, commands.ts):
 * what a careless call or a note's own wording must not turn into evidence, or into silence.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, info, kb } from '../helpers/action.js';

const memory = (name: string, description: string, body: string, type = 'feedback'): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`;

describe('a note that says not to pass an option', () => {
  const notes = kb({
    'documents/hooks.md': memory(
      'never-skip-hooks',
      'Never pass `--no-verify` to git commit: the pre-commit hook runs the secret scanner',
      'Do not pass `--no-verify`; fix what the hook reports instead.',
    ),
  });
  it('is not silenced by a run that passes exactly that option', () => {
    const got = matchAction(notes, call('Bash', { command: 'git commit --no-verify -m "wip"' }), '/home/dev/shop', { info });
    expect(got.map((m) => m.id)).toContain('never-skip-hooks');
  });
});
