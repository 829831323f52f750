/**
 * Calls that break a memory's rule keep getting the reminder, though they look like calls that apply
 * it: a commit in the rule's subject format that misses a trailer the rule requires, carries one it
 * forbids, skips the sign-off it asks for, stages everything with `-am` or `--all`, or is followed by
 * a second commit that breaks the format; a recommended command run with an option the note warns
 * of after `--`; an option a note says adding is wrong. And a commit message the parser cannot read
 * costs no more than one it can.
 */
import { describe, it, expect } from '@jest/globals';
import { commitMessage } from '../../operators/action/commit-format.js';
import { ids, kb, memory } from '../helpers/action.js';

const COMMITS = [
  'Subject `type(scope): imperative summary`, max 72 chars, scope one of `api`, `web`, `infra`. Body explains why.',
  'Last line `Refs: SHOP-<n>`. No `Co-Authored-By` or "Generated with" trailers.',
  '',
  'Stage files by path. Never `git add -A` / `git commit -a`: the tree holds build output.',
].join('\n');

const commitsKb = kb({
  'documents/commits.md': memory('commit-message-format', 'Conventional commits with a scope and a Refs trailer; stage by path', COMMITS),
});
const run = (idx: ReturnType<typeof kb>, command: string): string[] => ids(idx, 'Bash', { command }, '/home/dev/shop');
const FOLLOWS = 'git add lib/a.ex && git commit -m "feat(api): add order export" -m "Refs: SHOP-12"';

describe('a commit in the subject format that breaks the rule otherwise', () => {
  it('still gets the rule when it lacks the trailer the rule requires', () => {
    expect(run(commitsKb, FOLLOWS)).not.toContain('commit-message-format');
    expect(run(commitsKb, 'git add lib/a.ex && git commit -m "feat(api): add order export"')).toContain('commit-message-format');
  });

  it('still gets the rule when it stages everything with a bundled `-am` or with `--all`', () => {
    expect(run(commitsKb, 'git commit -am "feat(api): add order export" -m "Refs: SHOP-12"')).toContain('commit-message-format');
    expect(run(commitsKb, 'git add --all && git commit -m "feat(api): add order export" -m "Refs: SHOP-12"')).toContain(
      'commit-message-format',
    );
  });

  it('still gets the rule when a second commit of the call breaks the format', () => {
    expect(run(commitsKb, `${FOLLOWS} && git add lib/b.ex && git commit -m "fixed b"`)).toContain('commit-message-format');
  });

  it('still gets the rule when it carries an attribution trailer the rule forbids in other words', () => {
    const trailer = 'git commit -m "feat(api): add x" -m "Co-Authored-By: Claude <noreply@anthropic.com>"';
    for (const rule of [
      'Git commit subjects follow `type(scope): summary`. Never add `Co-Authored-By: Claude` to commits.',
      'Git commit subjects follow `type(scope): summary`. Do not include `Co-Authored-By` lines.',
    ]) {
      const idx = kb({ 'documents/c.md': memory('commit-message-format', 'How to write commit messages', rule) });
      expect(run(idx, 'git commit -m "feat(api): add x"')).toEqual([]);
      expect(run(idx, trailer)).toContain('commit-message-format');
    }
  });

  it('still gets the rule when it skips the sign-off the rule asks for', () => {
    const idx = kb({
      'documents/c.md': memory(
        'commit-message-format',
        'How to write commit messages',
        'Commit messages use `type(scope): summary`. Always sign off with `git commit -s` (DCO).',
      ),
    });
    expect(run(idx, 'git commit -s -m "feat(api): add x"')).toEqual([]);
    expect(run(idx, 'git commit -m "feat(api): add x"')).toContain('commit-message-format');
  });
});

describe('a heredoc commit message the parser cannot read', () => {
  it('is given up on in linear time', () => {
    const hostile = `git commit -m "$(cat <<'EOF'\n${'\n'.repeat(300)}EOF${' '.repeat(300)}x"`;
    const t0 = Date.now();
    commitMessage(hostile);
    expect(Date.now() - t0).toBeLessThan(200);
  });
});

describe('a recommended command run with what the note warns of', () => {
  const snapshots = kb({
    'documents/snap.md': memory(
      'jest-snapshots',
      'Snapshot changes are reviewed by hand',
      'Run the unit tests with `npm test`. Never update snapshots with `npm test -- -u`: snapshot changes are reviewed by hand.',
    ),
  });

  it('after `--` still gets the note', () => {
    expect(run(snapshots, 'npm test')).toEqual([]);
    expect(run(snapshots, 'npm test -- -u')).toContain('jest-snapshots');
  });

  it('an option the note says adding is wrong is no option it asks for', () => {
    const idx = kb({
      'documents/hooks.md': memory(
        'precommit-hooks',
        'Pre-commit hooks must run on every commit',
        'Adding `--no-verify` to git commit skips the pre-commit hooks: never do it, fix the hook failure instead.',
      ),
    });
    expect(run(idx, 'git commit --no-verify -m "fix: x"')).toContain('precommit-hooks');
  });
});
