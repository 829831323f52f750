/**
 * Hostile review of the ways a run is read as following a memory, and of commit messages read as
 * prose (operators/action/stances.ts, spans.ts, commands.ts, commit-format.ts, shell-split.ts): each
 * case is a call that breaks the memory, or runs a command, and must still get it.
 */
import { describe, it, expect } from '@jest/globals';
import { shellCommands } from '../../operators/action/index.js';
import { ids, kb, memory } from '../helpers/action.js';
const run = (idx: ReturnType<typeof kb>, command: string): string[] => ids(idx, 'Bash', { command, description: 'x' }, '/home/dev/skerry');
const one = (body: string, title = 'A rule') => kb({ 'n.md': memory('rule', title, body) });

describe('a negation or a guard that opens the sentence', () => {
  it.each([
    ["Don't ever, for any reason, run `terraform destroy` on the shared stack.", 'terraform destroy -auto-approve'],
    ['Never ever, even if asked, run `terraform destroy`.', 'terraform destroy'],
    ['Please never, even if tests fail, use `git commit --no-verify`.', 'git commit --no-verify -m "fix: a"'],
    ['Under no circumstances, run `terraform destroy`.', 'terraform destroy'],
    ['Never: force-push, rewrite history, run `git reset --hard`.', 'git reset --hard HEAD~3'],
    ['Only after taking a snapshot, run `pg_restore --clean`.', 'pg_restore --clean x'],
    ['Only once the user confirms, run `terraform apply`.', 'terraform apply x'],
  ])('%s', (body, cmd) => expect(run(one(body), cmd)).toEqual(['rule']));
});

describe('an arrow under a negation, a wrong-way label, or into a story', () => {
  it.each([
    ["Don't: flaky hook → `git commit --no-verify`. Fix the hook instead.", 'git commit --no-verify -m "fix: a"'],
    ['Wrong: lockfile conflict → `rm package-lock.json`.', 'rm package-lock.json'],
    ['On main: avoid → `git push --force`.', 'git push --force origin main'],
    ['Old habit: conflict → `git reset --hard` lost uncommitted work twice.', 'git reset --hard origin/main'],
  ])('%s', (body, cmd) => expect(run(one(body), cmd)).toEqual(['rule']));
});

describe('an option that is the point of the command a memory recommends', () => {
  it.each([
    ['Always `git pull --rebase`.\n\n**Why:** `git merge` commits clutter the history of main.', 'git pull origin main'],
    ['Use `docker compose up --build` rather than `docker compose restart`: restart keeps the old image.', 'docker compose up -d'],
    ['Use `npm ci --ignore-scripts` instead of `npm install` in CI: postinstall scripts are untrusted.', 'npm ci'],
    ['Deploy with `kubectl apply --server-side`, never `kubectl replace`.', 'kubectl apply -f deploy.yaml'],
  ])('%s', (body, cmd) => expect(run(one(body), cmd)).toEqual(['rule']));
});

describe('an option before the step a How-to-apply names', () => {
  it('is still asked for when the step is taken another way', () => {
    const idx = kb({
      'n.md': memory(
        'rule',
        'Deploys from this laptop go to staging only',
        'The default kube context is prod.\n\n**How to apply:** Any manifest apply: `kubectl --context staging apply --server-side -f k8s/`.',
        'project',
      ),
    });
    expect(run(idx, 'kubectl apply --server-side -f k8s/')).toEqual(['rule']);
  });
});

describe("git's own -C <dir>", () => {
  const idx = kb({
    'c.md': memory(
      'commit-message-format',
      'Commits use Conventional Commits with a component scope and a Refs trailer',
      'Subject `type(scope): summary`.\n\n**How to apply:** Every commit I create.',
    ),
  });
  it.each(['git -C ../skerry commit -F /tmp/msg.txt', "git -C ../skerry commit -F - <<'EOF'\nfixed stuff\nEOF"])('%s', (cmd) =>
    expect(run(idx, cmd)).toEqual(['commit-message-format']),
  );
});

describe('a heredoc a shell runs, or whose body the shell expands', () => {
  const pnpm = kb({ 'p.md': memory('rule', 'Use pnpm, never npm', 'Install with `pnpm add`, never `npm install`.') });
  const tf = kb({
    't.md': memory('rule', 'terraform destroy on shared stacks', 'Never run `terraform destroy` on the shared stack; it wiped staging.'),
  });
  it('bash -c "$(cat <<EOF …)": lines are commands', () => {
    expect(shellCommands(`bash -c "$(cat <<'EOF'\ncd infra/shared\nterraform destroy -auto-approve\nEOF\n)"`)).toContainEqual([
      'terraform',
      'destroy',
      '-auto-approve',
    ]);
    expect(run(tf, `bash -c "$(cat <<'EOF'\ncd infra/shared\nterraform destroy -auto-approve\nEOF\n)"`)).toEqual(['rule']);
    expect(run(pnpm, `bash -c "$(cat <<'EOF'\npnpm add zod\nnpm install left-pad\nEOF\n)"`)).toEqual(['rule']);
  });
  it('unquoted <<EOF: $(…) and `…` in the body run', () => {
    expect(run(pnpm, 'git commit -m "$(cat <<EOF\nfix: bump deps $(npm install left-pad)\nEOF\n)"')).toEqual(['rule']);
    expect(run(pnpm, 'git commit -m "$(cat <<EOF\nfix: run `npm install left-pad`\nEOF\n)"')).toEqual(['rule']);
  });
  it('the body ends at the first tag line, as bash ends it', () => {
    expect(shellCommands(`git commit -m "$(cat <<'EOF'\nfix: a\nEOF\nnpm install left-pad\nEOF\n)"`)).toContainEqual([
      'npm',
      'install',
      'left-pad',
    ]);
  });
});

describe('a hostile line of heredoc openers and blanks', () => {
  it('is split in linear time', () => {
    const open = '$(cat <<A\n'.repeat(133);
    const s = 'git commit -m "' + open + '\nA' + ' '.repeat(4000 - open.length - 20) + 'x';
    const t0 = performance.now();
    shellCommands(s);
    // Quadratic, this took about a second here; linear, a few milliseconds.
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
