/**
 * Calls that already apply a memory's rule get no reminder of it, in four shapes the rule states:
 * a commit message in the rule's format, a program the project runs through its package manager
 * (`poetry run larkspur ops backfill`, another command than `… ops parity`), code the rule requires
 * ("public functions get a `@spec`"), and a folder whose rule is about code written there ("nothing
 * under `lib/web/` aliases `App.Repo`"), which an edit of a heading there does not touch.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction, spanStances } from '../../operators/action/index.js';
import { commitFormatOf, commitMessage, followsCommitFormat } from '../../operators/action/commit-format.js';
import { commandWords } from '../../operators/action/patterns.js';
import { call, ids, info, kb, memory } from '../helpers/action.js';

const COMMITS = [
  'Subject `type(scope): imperative summary`, max 72 chars, scope one of `api`, `web`, `infra`. Body explains why.',
  'Last line `Refs: SHOP-<n>`. No `Co-Authored-By` or "Generated with" trailers.',
  '',
  'Stage files by path. Never `git add -A` / `git commit -a`: the tree holds build output.',
].join('\n');

const notes = kb({
  'documents/commits.md': memory('commit-message-format', 'Conventional commits with a scope and a Refs trailer; stage by path', COMMITS),
  'documents/parity.md': memory(
    'ingest-parity',
    'Compare the new ingest DB with the old one before switching a source',
    'Before switching a source run `poetry run larkspur ops parity <source> --days 3` and attach the output.',
    'project',
  ),
  'documents/e2e.md': memory(
    'e2e-conventions',
    'Admin e2e: Playwright through npm run e2e, which boots the e2e server with seeds',
    'Run the end-to-end tests with `npm run e2e` from `admin/`. Never start a dev server yourself for them.',
  ),
  'documents/devdb.md': memory(
    'dev-postgres-port',
    'Local Postgres for development listens on 5433, not 5432',
    'Postgres runs in Docker on host port 5433. Any command against the local database (psql, createdb, pg_dump): add `-p 5433`.',
    'user',
  ),
  'documents/deps.md': memory(
    'poetry-deps',
    'Add Python deps with poetry inside the package; never pip install',
    'To add a dependency run `poetry add <pkg>` in the package. Never `pip install` into a venv.',
  ),
  'documents/dbt.md': memory(
    'dbt-state-selection',
    'Never run a bare dbt build; select state:modified+ and defer to prod',
    [
      "Don't run `dbt build` or `dbt test` without a selector: a full build takes 50 minutes.",
      'Use `dbt build --select state:modified+ --defer --state prod-artifacts/`. Prefer `dbt build` over `dbt run`.',
    ].join(' '),
  ),
  'documents/boundary.md': memory(
    'web-context-boundary',
    'lib/shop_web calls context functions only: no Repo or Ecto queries there',
    [
      'Nothing under `lib/shop_web/` aliases `Shop.Repo` or builds an `Ecto.Query`. Add a function to the owning context.',
      'Public context functions get a `@doc` and a `@spec`.',
    ].join(' '),
  ),
});
const run = (command: string): string[] => ids(notes, 'Bash', { command }, '/home/dev/shop');
const edit = (file_path: string, old_string: string, new_string: string): string[] =>
  ids(notes, 'Edit', { file_path, old_string, new_string }, '/home/dev/shop');

describe('a commit in the format the rule states', () => {
  it('reads the format: template, prefixes, listed scopes, length, forbidden trailers', () => {
    const f = commitFormatOf(COMMITS)!;
    expect(f.scoped).toBe(true);
    expect([...f.scopes!]).toEqual(['api', 'web', 'infra']);
    expect(f.prefixes!.has('feat')).toBe(true);
    expect(f.maxSubject).toBe(72);
    expect(f.forbidden).toEqual(['co-authored-by', 'generated with']);
    // "<area>: <summary>" with the areas listed in words after it.
    const area = commitFormatOf(
      'Subject line `<area>: <imperative summary>`, area being a top-level dir (`billing`, `dispatch`), no trailing period.',
    )!;
    expect(area).toMatchObject({ scoped: false, noTrailingPeriod: true });
    expect([...area.prefixes!]).toEqual(['billing', 'dispatch']);
    expect(commitFormatOf('Write good commit messages.')).toBeNull();
  });

  it('reads the message from -m values and from a heredoc', () => {
    expect(commitMessage(`git commit -m "feat(api): add x" -m "Why." -m "Refs: SHOP-1"`)).toBe('feat(api): add x\n\nWhy.\n\nRefs: SHOP-1');
    expect(commitMessage(`git commit -m "$(cat <<'EOF'\nfix(web): keep filter\n\nRefs: SHOP-2\nEOF\n)"`)).toBe(
      'fix(web): keep filter\n\nRefs: SHOP-2',
    );
    expect(commitMessage(`git commit -am 'Fixed it'`)).toBe('Fixed it');
    expect(commitMessage('git commit')).toBeNull();
    expect(commitMessage('git status')).toBeNull();
  });

  it('judges a message against the format', () => {
    const f = commitFormatOf(COMMITS)!;
    // The rule's trailer (`Refs: SHOP-<n>`) is part of its format.
    expect(followsCommitFormat('feat(api): add order export\n\nRefs: SHOP-12', f)).toBe(true);
    expect(followsCommitFormat('feat(billing): add order export', f)).toBe(false);
    expect(followsCommitFormat('Fixed the export bug', f)).toBe(false);
    expect(followsCommitFormat(`fix(web): ${'x'.repeat(80)}`, f)).toBe(false);
    expect(followsCommitFormat('fix(web): keep filter\n\nCo-Authored-By: Bot <b@x>', f)).toBe(false);
  });

  it('gives the rule for a commit that breaks it, not for one that follows it', () => {
    expect(run('git commit -m "order export"')).toContain('commit-message-format');
    expect(run('git add -A && git commit -m "feat(api): add order export"')).toContain('commit-message-format');
    expect(run('git add lib/a.ex && git commit -m "feat(api): add order export" -m "Ops needs it." -m "Refs: SHOP-12"')).not.toContain(
      'commit-message-format',
    );
  });
});

describe('a program the project runs through its package manager', () => {
  it('is named with its own subcommands', () => {
    expect(commandWords(['poetry', 'run', 'larkspur', 'ops', 'backfill', 'x', '--start', '1'])).toEqual([
      'run',
      'larkspur',
      'ops',
      'backfill',
    ]);
    expect(commandWords(['bundle', 'exec', 'rails', 'db:migrate'])).toEqual(['exec', 'rails', 'db:migrate']);
    // A package script's own options and paths are not its name.
    expect(commandWords(['npm', 'run', 'test', '--', '--watch'])).toEqual(['run', 'test']);
    expect(commandWords(['uv', 'run', 'pytest', 'tests/unit'])).toEqual(['run', 'pytest']);
  });

  it('so another subcommand of that program is another command', () => {
    // What the call's command gives each note it reaches (its words aside: every word counts as rare here).
    const commandClues = (command: string): string[] =>
      matchAction(notes, call('Bash', { command }), '/home/dev/shop', { info, threshold: 0 }).flatMap((m) =>
        m.why.filter((w) => /^(?:command|applies):/.test(w)).map((w) => `${m.id} ${w}`),
      );
    expect(commandClues('poetry run larkspur ops parity orders --days 4 --verbose')).toEqual([
      'ingest-parity command:poetry run larkspur ops parity',
    ]);
    expect(commandClues('poetry run larkspur ops backfill orders --start 2026-09-01')).toEqual([]);
  });
});

describe('code a rule requires', () => {
  it('is recommended: writing it follows the rule', () => {
    const stance = (text: string) => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);
    expect(stance('Public context functions get a `@doc` and a `@spec`.')).toEqual(['@doc:do', '@spec:do']);
    expect(stance('Every handler needs a `ctx` argument.')).toEqual(['ctx:do']);
    expect(stance('The payload has `card.number` in it.')).toEqual(['card.number:-']);
  });
});

describe('a folder whose rule is about code written there', () => {
  it('holds for an edit there that writes that code, not for one that changes a heading', () => {
    const live = '/home/dev/shop/lib/shop_web/live/orders_live.ex';
    expect(edit(live, 'orders = Orders.list()', 'orders = Shop.Repo.all(from o in Order, where: o.open)')).toContain(
      'web-context-boundary',
    );
    expect(edit('/home/dev/shop/lib/shop_web/live/orders_live.html.heex', '<h1>Orders</h1>', '<h1>Open orders</h1>')).toEqual([]);
  });
});

describe('a run of the recommended command', () => {
  it('with arguments handed to its script after `--` follows it', () => {
    expect(run('cd admin && npm run e2e -- e2e/invoices.spec.ts')).not.toContain('e2e-conventions');
    expect(run('cd admin && npx playwright test e2e/invoices.spec.ts')).toContain('e2e-conventions');
  });

  it('passing the option a note says to add follows it', () => {
    expect(run("psql -h localhost -p 5433 -U postgres shop_dev -c 'select 1'")).not.toContain('dev-postgres-port');
    expect(run('createdb -h localhost -U postgres shop_scratch')).toContain('dev-postgres-port');
  });
});

describe('what a package manager runs, and a command the note both warns of and prefers', () => {
  it('reads the program a runner runs as a command of the call', () => {
    expect(run('cd packages/heron && poetry run pip install tenacity')).toContain('poetry-deps');
    expect(run('cd packages/heron && poetry add tenacity')).not.toContain('poetry-deps');
  });

  it('does not take a command the note warns of as followed because it also prefers it elsewhere', () => {
    expect(run('cd dbt && dbt build --target dev')).toContain('dbt-state-selection');
    expect(run('cd dbt && dbt build --select state:modified+ --defer --state prod-artifacts/')).not.toContain('dbt-state-selection');
  });
});

describe("a package manager in a rule's name", () => {
  it('names its language: a Python dependency rule is not about an npm install', () => {
    expect(run('npm install zod@^3.24.1')).not.toContain('poetry-deps');
    expect(run('cd packages/heron && poetry run pip install tenacity')).toContain('poetry-deps');
  });
});
