/**
 * A commit rule that warns of `git commit` itself ("Never `git commit` directly on `main`") is about
 * the commit, not only its message: a commit in the right format still gets it. Only a rule that
 * names `git commit` as what its format is for ("Every `git commit` message: …") is followed by one.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

describe('a commit rule that warns of git commit', () => {
  it('is given for a commit in its format too', () => {
    const idx = kb({
      'documents/commits.md': memory(
        'no-commit-on-main',
        'Never commit on main',
        'Never `git commit` directly on `main`; branch first. Messages: `type(scope): imperative summary`. Scopes: `app`, `store`, `ui`.',
      ),
    });
    expect(ids(idx, 'Bash', { command: 'git commit -m "fix(store): close the pool"' })).toEqual(['no-commit-on-main']);
  });
});
