/**
 * Runs that only look like following a memory: what a note records as wrong, as the cause of an
 * incident or as a repro is no advice, whatever shape it is written in; a value or file the note
 * warns of is no other instance of what it recommends; an option that undoes the recommended
 * command is no option the note "says nothing of".
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction, spanStances } from '../../operators/action/index.js';
import { call, ids, info, kb, memory } from '../helpers/action.js';

const stance = (text: string): string[] => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);
const run = (body: string, command: string, name = 'the-memory', description = 'What the memory says'): string[] =>
  ids(kb({ 'documents/m.md': memory(name, description, body) }), 'Bash', { command }, '/home/dev/shop');

describe('an aside in parentheses', () => {
  it('says nothing against the span after it', () => {
    expect(
      stance('Run per package: `uv run pytest packages/api` (the worker has no integration tests), narrowed with `-k test_refund`.'),
    ).toEqual(['uv run pytest packages/api:do', '-k test_refund:do']);
    // A warning the aside leaves open still warns: "(never `X`)".
    expect(stance('Use `pnpm add` (never `npm install`).')).toEqual(['pnpm add:do', 'npm install:-']);
  });

  it('that warns, guards or calls it the wrong way still does', () => {
    expect(stance("The old way (don't do this): `git push --force origin main`")).toEqual(['git push --force origin main:-']);
    expect(stance('Reset (NOT recommended): `git reset --hard origin/main`')).toEqual(['git reset --hard origin/main:-']);
    expect(stance('Use (but never on main) `git push --force`.')).toEqual(['git push --force:-']);
    expect(stance('Run (only after a backup) `pg_restore --clean`.')).toEqual(['pg_restore --clean:-']);
  });
});

describe('a command a colon introduces', () => {
  it('is no advice after a label that says it is wrong, caused an incident or reproduces a bug', () => {
    expect(stance('Wrong: `git push --force origin main`. Right: `git push --force-with-lease origin my-branch`.')).toEqual([
      'git push --force origin main:-',
      'git push --force-with-lease origin my-branch:do',
    ]);
    expect(stance('Bad: `npm install lodash`. Good: `pnpm add lodash`.')).toEqual(['npm install lodash:-', 'pnpm add lodash:do']);
    expect(stance('Root cause: `terraform destroy -target=module.db` ran on the shared workspace.')).toEqual([
      'terraform destroy -target=module.db:-',
    ]);
    expect(stance('Repro: `curl -X DELETE https://api.shop.dev/carts/1`.')).toEqual(['curl -X DELETE https://api.shop.dev/carts/1:-']);
    // What the clause says to do still is.
    expect(stance('Before I say a change is done: `pnpm turbo run lint typecheck`.')).toEqual(['pnpm turbo run lint typecheck:do']);
  });

  it('so running the wrong one still gets the reminder', () => {
    const body = 'Wrong: `git push --force origin main`. Right: `git push --force-with-lease origin my-branch`.';
    expect(run(body, 'git push --force origin main', 'force-push', 'How to force-push a rewritten branch')).toContain('force-push');
    expect(run(body, 'git push --force-with-lease origin my-branch', 'force-push', 'How to force-push a rewritten branch')).toEqual([]);
    expect(
      run(
        'Root cause: `terraform destroy -target=module.db` ran on the shared workspace.',
        'terraform destroy -target=module.db',
        'tf-destroy',
        'A terraform destroy wiped the shared database',
      ),
    ).toContain('tf-destroy');
  });
});

describe('the items of a list', () => {
  it('are no advice under a lead-in that calls them dangerous or deprecated, whatever its last clause says', () => {
    expect(stance('Dangerous commands — run with care:\n- `rails db:reset`\n- `rails db:drop`')).toEqual([
      'rails db:reset:-',
      'rails db:drop:-',
    ]);
    expect(stance('Deprecated (use turbo instead):\n- `pnpm -r test`')).toEqual(['pnpm -r test:-']);
    // A lead-in whose sentence says to run them still leads them in.
    expect(stance('Every package uses Vitest (there is no Jest left). Run tests per package:\n- `pnpm turbo run test`')).toEqual([
      'pnpm turbo run test:do',
    ]);
  });

  it('of a nested list are led in by the item they hang from ("- Never on prod:"), not the top line', () => {
    const text = 'Run these before a release:\n- Safe anywhere:\n  - `pnpm test`\n- Never on prod:\n  - `pnpm db:reset`';
    expect(stance(text)).toEqual(['pnpm test:-', 'pnpm db:reset:-']);
    expect(stance('Run these before a release:\n- Run both:\n  - `pnpm test`\n  - `pnpm build`')).toEqual([
      'pnpm test:do',
      'pnpm build:do',
    ]);
    // A wrapped item's second line is part of the list, not its lead-in.
    expect(stance('Run these:\n- `pnpm test` runs the unit tests\n  and the integration ones\n- `pnpm build`')).toEqual([
      'pnpm test:do',
      'pnpm build:do',
    ]);
  });

  it('so running a dangerous one still gets the reminder', () => {
    const body = 'Dangerous commands — run with care:\n- `rails db:reset`\n- `rails db:drop`';
    expect(run(body, 'rails db:reset', 'rails-db-resets', 'Rails database resets wipe the dev data')).toContain('rails-db-resets');
  });
});

describe('"instead" after a span', () => {
  it('recommends the span it follows, not one further back in the clause', () => {
    expect(stance('Log `user_id`, `order_id` instead.')).toEqual(['user_id:do', 'order_id:do']);
    expect(stance('`pnpm vitest` instead.')).toEqual(['pnpm vitest:do']);
    expect(stance('`jest` was removed and vitest runs instead.')).toEqual(['jest:-']);
    expect(stance('`yarn install` was dropped in March and `pnpm install` is used instead.')).toEqual([
      'yarn install:-',
      'pnpm install:do',
    ]);
  });

  it('so running the dropped tool still gets the reminder', () => {
    const body = '`yarn install` was dropped in March and `pnpm install` is used instead.';
    expect(run(body, 'yarn install', 'yarn-dropped', 'The repo moved from yarn to pnpm')).toContain('yarn-dropped');
    expect(run(body, 'pnpm install', 'yarn-dropped', 'The repo moved from yarn to pnpm')).toEqual([]);
  });
});

describe('"log" before a span', () => {
  it('recommends it as a verb that opens the clause, not as the noun of an incident', () => {
    expect(stance('Log `tenant_id`, `batch_id` and counts.')).toEqual(['tenant_id:do', 'batch_id:do']);
    expect(stance('- Only log `order_id`.')).toEqual(['order_id:do']);
    expect(stance('The payment log contained `card.number` in plain text last March.')).toEqual(['card.number:-']);
  });

  it('so an edit that logs the leaked field still counts it as evidence', () => {
    const notes = kb({
      'documents/m.md': memory(
        'card-data-leak',
        'Card data leaked in plain text',
        'Redact card fields before logging.\n\nThe payment log contained `card.number` in plain text last March.',
        'project',
      ),
    });
    const edit = { file_path: '/home/dev/shop/payments/charge.ts', old_string: '}', new_string: 'logger.info("charge", card.number);\n}' };
    const why = matchAction(notes, call('Edit', edit), '/home/dev/shop', { info, threshold: 0 }).flatMap((m) => m.why);
    expect(why).toContain('token:card.number');
  });
});

describe('another value for an option the recommended command passes', () => {
  const body = 'Deploy with `fly deploy --app shop-staging`. Never deploy `shop-prod` without approval.';

  it('is no value the note offers when the note names it only in a warning', () => {
    expect(run(body, 'fly deploy --app shop-prod', 'fly-deploys', 'Deploy to staging with fly')).toContain('fly-deploys');
    expect(run(body, 'fly deploy --app shop-staging', 'fly-deploys', 'Deploy to staging with fly')).toEqual([]);
  });

  it('nor as --option=value', () => {
    const eq = 'Deploy with `fly deploy --app=shop-staging`. Never deploy `shop-prod` without approval.';
    expect(run(eq, 'fly deploy --app=shop-prod', 'fly-deploys', 'Deploy to staging with fly')).toContain('fly-deploys');
  });
});

describe('another file of the kind the recommended command names', () => {
  it('is no other instance when the note names the run otherwise (a command it warns of)', () => {
    const body = 'Run `node scripts/migrate-dev.js` to migrate; never `node scripts/migrate-prod.js` from a laptop.';
    expect(run(body, 'node scripts/migrate-prod.js', 'migrations', 'Migrate the dev database only')).toContain('migrations');
    expect(run(body, 'node scripts/migrate-dev.js', 'migrations', 'Migrate the dev database only')).toEqual([]);
    const seed = 'Seed with `./scripts/seed.sh db/seeds/dev.sql`; never `./scripts/seed.sh db/seeds/prod.sql`.';
    expect(run(seed, './scripts/seed.sh db/seeds/prod.sql', 'seeding', 'Seed the dev database')).toContain('seeding');
  });

  it('while an option the note says nothing of still follows where it names a plain command otherwise', () => {
    const body = 'Push a rewritten branch with `git push --force-with-lease`, not a plain `git push`.';
    expect(run(body, 'git push --force-with-lease -u origin fix/slots', 'lease-push', 'Push rewritten branches with a lease')).toEqual([]);
    expect(run(body, 'git push origin fix/slots', 'lease-push', 'Push rewritten branches with a lease')).toContain('lease-push');
  });
});

describe('the script an interpreter runs', () => {
  it('is the command itself, not a file of which another of its kind will do', () => {
    const body = 'Deploy with `bash scripts/deploy-staging.sh` and check the dashboard.';
    expect(run(body, 'bash scripts/deploy-prod.sh', 'deploys', 'Deploy to staging with the script')).toContain('deploys');
    expect(run(body, 'bash scripts/deploy-staging.sh', 'deploys', 'Deploy to staging with the script')).toEqual([]);
    // A test file a runner takes is one instance of what to pass.
    const rspec = 'Run only the files you touched: `bin/rspec spec/requests/orders_spec.rb:42`.';
    expect(run(rspec, 'bin/rspec spec/requests/tips_spec.rb', 'rspec-files', 'Run single rspec files')).toEqual([]);
  });
});

describe('an option the recommended command is run with besides its own', () => {
  const body = 'Push a rewritten branch with `git push --force-with-lease`, never a plain force push.';
  const push = (command: string): string[] => run(body, command, 'force-push', 'Push rewritten branches with a lease');

  it('is no option the note says nothing of when it is what the note names a longer form of, or its one letter', () => {
    expect(push('git push --force-with-lease --force')).toContain('force-push');
    expect(push('git push --force-with-lease -f')).toContain('force-push');
  });

  it('still follows with an option the note says nothing of', () => {
    expect(push('git push --force-with-lease')).toEqual([]);
    expect(push('git push --force-with-lease --set-upstream origin fix/slots')).toEqual([]);
    expect(push('git push --force-with-lease -u origin fix/slots')).toEqual([]);
  });
});

describe('an option the run passes', () => {
  it('is a clue of its own where the note warns of it, not part of sharing the tool', () => {
    const notes = kb({
      'documents/a.md': memory(
        'hooks-run-linters',
        'Pre-commit hooks run the linters',
        'The pre-commit hooks run eslint and the type check. Never skip them with `--no-verify`: CI fails the same checks later.',
      ),
      'documents/b.md': memory(
        'npm-publish',
        'Publishing packages',
        'Publish with `npm publish --access public`; `--no-verify` is not an npm flag.',
      ),
      'documents/c.md': memory('husky-setup', 'Husky setup', 'Husky installs the hooks on `pnpm install`; `--no-verify` bypasses them.'),
    });
    expect(ids(notes, 'Bash', { command: 'git commit --no-verify -m wip' })).toContain('hooks-run-linters');
  });
});
