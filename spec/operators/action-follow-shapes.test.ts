/**
 * A run that already does what a memory says, written in the shapes memories use: a list of commands
 * under a line that says to run them, a command a clause introduces with a colon, another value the
 * memory offers for an option, another file of the kind its command names, options the memory says
 * nothing of. And what stays evidence: a runner's task, an option of the program, an identifier.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction, spanStances } from '../../operators/action/index.js';
import { call, ids, info, kb, memory } from '../helpers/action.js';
import { commandWords } from '../../operators/action/patterns.js';

const notes = kb({
  'documents/tests.md': memory(
    'test-commands',
    'Run tests through turbo with a package filter; never bare vitest',
    [
      'Every package uses Vitest (there is no Jest left). Run tests per package:',
      '',
      '- `pnpm turbo run test --filter=@plotline/api` (also `@plotline/web`, `@plotline/shared`)',
      '- one file: `pnpm --filter @plotline/api exec vitest run src/a.spec.ts`',
      '',
      'Never the root `pnpm test`: it runs the e2e suite too.',
    ].join('\n'),
  ),
  'documents/lint.md': memory(
    'lint-typecheck-before-done',
    'Lint and typecheck changed packages before calling a change done',
    'Before I say a change is done: `pnpm turbo run lint typecheck --filter=...[origin/main]`.',
  ),
  'documents/prs.md': memory(
    'pr-conventions',
    'Open PRs as drafts with a platform label',
    'Open PRs with `gh pr create --draft --base main --label platform:android` (or `platform:api`). Never `--no-draft`.',
  ),
  'documents/rspec.md': memory(
    'rspec-request-specs',
    'Backend tests are request specs; run single files',
    'Run only the files you touched: `bin/rspec spec/requests/orders_spec.rb:42`; the full suite runs in CI.',
  ),
  'documents/tracker.md': memory(
    'linear-tracker',
    'Work is tracked in Linear; flaky tests get the flaky label',
    'The `linear` CLI is logged in: `linear issue create --team DATA --label flaky --title ...`.',
    'reference',
  ),
});
const run = (command: string): string[] => ids(notes, 'Bash', { command }, '/home/dev/plotline');

describe('what a memory says to run', () => {
  it('reads the items of a list led in by "Run … :" as recommended, and not those under a warning', () => {
    const stance = (text: string) => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);
    expect(stance('Uses Vitest (no Jest). Run tests per package:\n\n- `pnpm turbo run test`\n- `pnpm run e2e`')).toEqual([
      'pnpm turbo run test:do',
      'pnpm run e2e:do',
    ]);
    expect(stance('Never run these on prod:\n- `rails db:reset`')).toEqual(['rails db:reset:-']);
    expect(stance('Commands that broke staging:\n- `kubectl delete ns staging`')).toEqual(['kubectl delete ns staging:-']);
  });

  it('reads a command a clause introduces with a colon as recommended, unless the clause warns', () => {
    const stance = (text: string) => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);
    expect(stance('Before I say a change is done: `pnpm turbo run lint typecheck`.')).toEqual(['pnpm turbo run lint typecheck:do']);
    expect(stance('It failed with: `npm install --force`.')).toEqual(['npm install --force:-']);
  });

  it('gives nothing for the command of a list item, with another package the memory offers', () => {
    expect(run('pnpm turbo run test --filter=@plotline/shared')).not.toContain('test-commands');
    // A package the memory does not offer: not the command as written.
    expect(run('pnpm turbo run test --filter=@plotline/billing')).toContain('test-commands');
  });

  it('gives nothing for the exact command a colon introduces', () => {
    expect(run('pnpm turbo run lint typecheck --filter=...[origin/main]')).not.toContain('lint-typecheck-before-done');
  });

  it('takes the label the memory offers besides its own, and options it says nothing of', () => {
    expect(run('gh pr create --draft --base main --label platform:api --title "fix: slots" --body-file /tmp/body.md')).not.toContain(
      'pr-conventions',
    );
    // An option the memory warns of is no option it "says nothing of".
    expect(run('gh pr create --draft --base main --label platform:api --no-draft')).toContain('pr-conventions');
    // A label it does not offer.
    expect(run('gh pr create --draft --base main --label platform:web')).toContain('pr-conventions');
  });

  it('takes another file of the kind its command names for the file it names', () => {
    expect(run('bin/rspec spec/requests/tips_spec.rb')).not.toContain('rspec-request-specs');
    expect(run('bin/rspec spec')).toContain('rspec-request-specs');
  });
});

describe('what stays evidence', () => {
  it("reads a runner's task as part of the command: `turbo run test` is not `turbo run lint`", () => {
    const why = matchAction(notes, call('Bash', { command: 'pnpm turbo run test --filter=@plotline/billing' }), '/home/dev/plotline', {
      info,
      threshold: 0,
    }).flatMap((m) => m.why);
    expect(why).toContain('command:pnpm turbo run test');
    expect(why).not.toContain('command:pnpm turbo run lint');
  });

  it("passes over a runner's option and its value for the task (`turbo run --filter api test`)", () => {
    expect(commandWords('pnpm turbo run --filter api test'.split(' '))).toEqual(['turbo', 'run', 'test']);
    expect(commandWords('pnpm turbo run --force test'.split(' '))).toEqual(['turbo', 'run', 'test']);
  });

  it('counts an option the memory recommends for another program: `gh issue create --title` does not follow `linear issue create`', () => {
    const reached = matchAction(notes, call('Bash', { command: 'gh issue create --title "flaky test"' }), '/home/dev/plotline', {
      info,
      threshold: 0,
    });
    expect(reached.find((m) => m.id === 'linear-tracker')?.why).toContain('token:--title');
  });

  it('counts an option of the program and the words naming the program as one piece of evidence', () => {
    const deps = kb({
      'documents/deps.md': memory('new-dependencies', 'Ask before adding a package', 'Add one with `pnpm --filter @shop/api add zod`.'),
    });
    const m = matchAction(deps, call('Bash', { command: 'pnpm turbo run build --filter=@shop/web' }), '/home/dev/shop', {
      info,
      threshold: 0,
    });
    expect(m.map((x) => x.pieces)).toEqual([1]);
  });

  it('counts an identifier once, whether matched as a token or by its words', () => {
    const money = kb({
      'documents/money.md': memory(
        'money-in-cents',
        'Money is integer cents',
        'Use the helpers of `@plotline/shared` (plotline shared money).',
      ),
    });
    const m = matchAction(money, call('Bash', { command: 'pnpm turbo run test --filter=@plotline/shared' }), '/tmp/project', {
      info,
      threshold: 0,
    });
    expect(m.map((x) => x.pieces)).toEqual([1]);
  });

  it('counts the object a member access reaches through, though the note recommends the field', () => {
    const env = kb({
      'documents/env.md': memory(
        'env-vars',
        'Config goes through the env schema; never read `process.env` directly',
        "Read it with `this.config.get('SLACK_WEBHOOK_URL')`.\n\n**How to apply:** New config keys.",
      ),
    });
    const write = (line: string): string[] =>
      ids(env, 'Edit', {
        file_path: '/home/dev/shop/apps/api/src/notify.ts',
        old_string: '  async notify() {',
        new_string: `  async notify() {\n${line}`,
      });
    expect(write('    const url = process.env.SLACK_WEBHOOK_URL;')).toEqual(['env-vars']);
    const why = matchAction(
      env,
      call('Edit', {
        file_path: '/home/dev/shop/apps/api/src/notify.ts',
        old_string: '',
        new_string: 'const url = process.env.SLACK_WEBHOOK_URL;',
      }),
      '/home/dev/shop',
      { info, threshold: 0 },
    ).flatMap((m) => m.why);
    expect(why).toContain('token:process.env');
  });
});
