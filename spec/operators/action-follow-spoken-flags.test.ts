/**
 * An option a memory speaks against in words ("never force-push" of a recommended `git push`) is no
 * option it says nothing of: a run that passes it breaks the memory and still gets it.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

const run = (idx: ReturnType<typeof kb>, command: string): string[] => ids(idx, 'Bash', { command });

describe('an option the memory speaks against in words', () => {
  const push = kb({
    'documents/push.md': memory(
      'push-plain',
      'Never force-push shared branches',
      "Push with a plain `git push` after rebasing onto main; never force-push, it rewrites teammates' history.",
    ),
  });

  it('is no option the memory says nothing of: the forced push still gets the memory', () => {
    expect(run(push, 'git push -f origin main')).toEqual(['push-plain']);
    expect(run(push, 'git push --force origin main')).toEqual(['push-plain']);
    expect(run(push, 'git push origin main')).toEqual([]);
  });
});
