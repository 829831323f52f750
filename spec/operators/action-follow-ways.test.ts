/**
 * Runs that already do what a memory says, in ways its text shows less plainly: a command after a
 * list of other items' negations, a command an arrow maps a situation to, a recommended command run
 * with another scope than the note's, a commit that writes no message, a step taken another way with
 * the options the note asks for. And what still gets the memory.
 */
import { describe, it, expect } from '@jest/globals';
import { spanStances } from '../../operators/action/index.js';
import { ids, kb, memory } from '../helpers/action.js';

const stance = (text: string): string[] => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : x.warned ? 'warn' : '-'}`);
const run = (idx: ReturnType<typeof kb>, command: string): string[] => ids(idx, 'Bash', { command, description: 'x' }, '/home/dev/skerry');

describe('a command after other items of the same sentence', () => {
  it('is recommended by its own verb, whatever the items before it negate or guard', () => {
    expect(
      stance('Go tests use testify/require (not assert), t.Parallel unless using the fixture, run via `just test-go` (-race).'),
    ).toEqual(['just test-go:do']);
    expect(stance('Avoid `npm install` in CI, use `npm ci`.')).toEqual(['npm install:warn', 'npm ci:do']);
  });

  it('stays warned of after a bare negation, and under a negation of its own part', () => {
    expect(stance("Don't, whatever the ticket says, run `terraform destroy`.")).toEqual(['terraform destroy:warn']);
    expect(stance('Never `kubectl apply`, `kubectl edit`, or `kubectl scale`.')).toEqual([
      'kubectl apply:warn',
      'kubectl edit:warn',
      'kubectl scale:warn',
    ]);
    expect(stance('It crashes on start, always with `SIGSEGV`.')).toEqual(['SIGSEGV:warn']);
  });

  it('so a run of it follows the memory', () => {
    const idx = kb({
      'go-tests.md': memory(
        'go-test-style',
        'Go tests are table-driven with testify/require (not assert), t.Parallel unless using the shared fixture, run via `just test-go` (-race)',
        'Run with `just test-go` (adds `-race -count=1`).\n\n**How to apply:** Writing or running Go tests.',
      ),
    });
    expect(run(idx, 'just test-go')).toEqual([]);
    // Running the tests another way is what it is about.
    expect(run(idx, 'go test ./... -run TestSplit')).toEqual(['go-test-style']);
  });
});

describe('a command an arrow maps a situation to', () => {
  it('is what to do in that situation; an arrow into a story is not', () => {
    expect(stance('Failed checks → `gh run view <id> --log-failed`; rerun → `gh run rerun <id> --failed`.')).toEqual([
      'gh run view <id> --log-failed:do',
      'gh run rerun <id> --failed:do',
    ]);
    expect(stance('They fight over the shared bucket fixture → random `NoSuchKey` failures.')).toEqual(['NoSuchKey:-']);
  });

  it('so a run of it follows the memory', () => {
    const idx = kb({
      'ci.md': memory(
        'ci-github-actions',
        'CI runs on GitHub Actions; rerun with gh',
        '**How to apply:** Failed checks → `gh run view <id> --log-failed`; rerun → `gh run rerun <id> --failed`.',
        'project',
      ),
    });
    expect(run(idx, 'gh run rerun 9912734 --failed')).toEqual([]);
  });
});

describe('a recommended command set against another command of its program', () => {
  const idx = kb({
    'rust-tests.md': memory(
      'rust-tests-nextest',
      'Run compactor tests with cargo nextest, not cargo test',
      'In `compactor/` use `cargo nextest run --workspace`. Plain `cargo test` makes the integration tests collide on the MinIO fixture.',
    ),
  });

  it('is followed with another scope: the choice it makes is the subcommand, not its one switch', () => {
    expect(run(idx, 'cargo nextest run -p compactor')).toEqual([]);
    expect(run(idx, 'cargo test -p compactor')).toEqual(['rust-tests-nextest']);
  });

  it('keeps an option the note writes again, or one set against the same command, as the point', () => {
    const lease = kb({
      'push.md': memory(
        'lease-push',
        'Push rewritten branches with a lease',
        'Push with `git push --force-with-lease`, not a plain `git push`.',
      ),
    });
    expect(run(lease, 'git push origin fix/slots')).toEqual(['lease-push']);
    const ci = kb({
      'ci.md': memory(
        'npm-ci-scripts',
        'CI installs with npm ci --ignore-scripts',
        'Use `npm ci --ignore-scripts`, not `npm install`: `--ignore-scripts` keeps postinstall scripts from running.',
      ),
    });
    expect(run(ci, 'npm ci')).toEqual(['npm-ci-scripts']);
  });
});

describe('a commit that writes no message of its own', () => {
  const idx = kb({
    'commits.md': memory(
      'commit-message-format',
      'Commits use Conventional Commits with a component scope and a Refs trailer',
      'Subject `type(scope): summary`.\n\n**How to apply:** Every commit I create.',
    ),
  });

  it('gets no reminder of the message format; one that writes a message does', () => {
    expect(run(idx, 'git commit --fixup=3f2a9c1')).toEqual([]);
    expect(run(idx, 'git commit --amend --no-edit')).toEqual([]);
    expect(run(idx, 'git commit -C HEAD@{1}')).toEqual([]);
    expect(run(idx, 'git commit -m "fix stuff"')).toEqual(['commit-message-format']);
    expect(run(idx, 'git commit --fixup=3f2a9c1 && git commit -m "wip"')).toEqual(['commit-message-format']);
  });
});

describe('the step a memory applies to, taken another way', () => {
  const idx = kb({
    'machine.md': memory(
      'user-dev-machine',
      'User works on an Apple Silicon Mac; cluster images must be built for linux/amd64',
      'Local builds produce arm64 images; all clusters are amd64-only.\n\n**How to apply:** Any image that will run in a cluster: `docker buildx build --platform linux/amd64 ...`.',
      'user',
    ),
  });

  it('follows it with the options it asks for, and gets it without them', () => {
    expect(run(idx, 'docker build --platform linux/amd64 -t registry.example/dev/api:x .')).toEqual([]);
    expect(run(idx, 'docker build -t registry.example/dev/api:x .')).toEqual(['user-dev-machine']);
    expect(run(idx, 'docker build --platform linux/arm64 -t registry.example/dev/api:x .')).toEqual(['user-dev-machine']);
  });
});
