/**
 * More calls that already do what a memory says, or only look, and get no reminder of it: a command
 * set out on its own line or in a block under a colon lead-in ("Lint Ruby like this:"), a program
 * run with options the memory says nothing of, a commit in a format written as a whole example or
 * ending with a tracker key, status and list subcommands (`db:migrate:status`, `git tag --list`),
 * and a folder a memory scopes one kind of work to ("any new migration or schema change in `api/`").
 * Each case also checks that the call breaking the rule still gets it.
 */
import { describe, it, expect } from '@jest/globals';
import { onlyLooks, readToolCall, spanStances } from '../../operators/action/index.js';
import { blockStances } from '../../operators/action/stances.js';
import { commitFormatOf, followsCommitFormat } from '../../operators/action/commit-format.js';
import { ids, kb, memory } from '../helpers/action.js';

const run = (idx: ReturnType<typeof kb>, command: string): string[] => ids(idx, 'Bash', { command });
const looks = (command: string): boolean => onlyLooks(readToolCall({ tool_name: 'Bash', tool_input: { command } })!.commands);

describe('a command the memory sets out under a colon lead-in', () => {
  const rubocop = kb({
    'documents/rubocop.md': memory(
      'rubocop-changed-files',
      'Run bin/rubocop with safe autocorrect on changed files only; never -A',
      [
        'Lint Ruby like this, from `api/`:',
        '',
        "`git diff --name-only origin/main... -- '*.rb' | xargs bin/rubocop -a`",
        '',
        'Never `-A` / `--autocorrect-all`: unsafe cops rewrote a check in March.',
      ].join('\n'),
    ),
  });

  it('reads a span on a line of its own after "like this:" as what to run', () => {
    const body = 'Lint like this:\n\n`bin/rubocop -a`\n\nThe build failed with:\n\n`bin/rubocop -A`';
    expect(spanStances(body).map((s) => [s.span, s.recommended])).toEqual([
      ['bin/rubocop -a', true],
      ['bin/rubocop -A', false],
    ]);
  });

  it('gives no reminder to the run it sets out, and keeps it for the option it warns of', () => {
    expect(run(rubocop, "git diff --name-only origin/main... -- '*.rb' | xargs bin/rubocop -a")).toEqual([]);
    // A one-letter option's case is what it means: `-A` is not `-a`.
    expect(run(rubocop, 'cd api && bin/rubocop -A')).toEqual(['rubocop-changed-files']);
  });

  it('reads a fenced block under a lead-in as what to run, and one under a failure as a symptom', () => {
    const text =
      'After changing a query:\n\n```\ncargo sqlx prepare --workspace\n```\n\nThe build failed with:\n\n```\ncargo build --offline\n```\n';
    expect(blockStances(text).map((s) => [s.span, s.recommended])).toEqual([
      ['cargo sqlx prepare --workspace', true],
      ['cargo build --offline', false],
    ]);
  });
});

describe('a program the memory says to use, with options it says nothing of', () => {
  const podman = kb({
    'documents/podman.md': memory(
      'dev-machine-podman',
      "Noor's laptop runs rootless Podman and no Docker",
      'There is no `docker` binary. Use `podman build` / `podman run` in commands. Never pass `--privileged`.',
      'user',
    ),
  });

  it('follows the memory, and still gets it for an option it names', () => {
    expect(run(podman, 'podman build -t api:local -f api/Dockerfile .')).toEqual([]);
    expect(run(podman, 'podman run --privileged api:local')).toEqual(['dev-machine-podman']);
  });

  it('is not followed with options it does not write, where it also names the command as a problem', () => {
    const nuget = kb({
      'documents/nuget.md': memory(
        'nuget-central-packages',
        'NuGet versions live only in Directory.Packages.props',
        '`dotnet add package` writes `Version=` into the csproj, which fails the build.\n\n**How to apply:** edit the props file by hand (or run `dotnet add package` and then move the version).',
      ),
    });
    expect(run(nuget, 'dotnet add src/Api/Api.csproj package Azure.Storage.Blobs --version 12.22.2')).toEqual(['nuget-central-packages']);
  });

  it('does not take a span a later negation reaches for a recommendation', () => {
    const stances = spanStances('`kubectl apply` is not fine here, `kubectl get` is.');
    expect(stances[0]).toMatchObject({ span: 'kubectl apply', recommended: false });
    expect(spanStances('Use `pnpm add` (not `npm install`).')[0]).toMatchObject({ recommended: true });
    expect(spanStances('`uv pip install` — not `pip install`.')[0]).toMatchObject({ recommended: true });
  });
});

describe('commit formats written as an example or ending with a tracker key', () => {
  const EXAMPLE = [
    'Format:',
    '',
    '```',
    'api: stop retrying payouts after a Stripe timeout',
    '',
    '<why, wrapped at 72>',
    '',
    'Story: sc-4821',
    '```',
    '',
    'Area is one of `api`, `mobile`, `infra`; at most 72 characters. No `Co-Authored-By: Claude`.',
  ].join('\n');

  it('reads the example: its prefix among the listed areas, its trailer required', () => {
    const f = commitFormatOf(EXAMPLE)!;
    expect(f).not.toBeNull();
    expect(followsCommitFormat('mobile: parse offer dates as ISO 8601\n\nHermes rejects them.\n\nStory: sc-4902', f)).toBe(true);
    expect(followsCommitFormat('mobile: parse offer dates as ISO 8601', f)).toBe(false);
    expect(followsCommitFormat('web: parse offer dates\n\nStory: sc-1', f)).toBe(false);
    expect(followsCommitFormat('Fix offer dates\n\nStory: sc-1', f)).toBe(false);
  });

  it('requires the key a template ends with', () => {
    const f = commitFormatOf('Commit subject: `type(scope): imperative summary [PAY-NNNN]`, at most 72 characters.')!;
    expect(followsCommitFormat('fix(worker): ack refunds after commit [PAY-1731]', f)).toBe(true);
    expect(followsCommitFormat('fix(worker): ack refunds after commit', f)).toBe(false);
  });

  it('gives no reminder to a commit in the format, where the rule names `git commit` itself', () => {
    const idx = kb({
      'documents/commits.md': memory(
        'conventional-commits',
        'Conventional Commits with a fixed scope list',
        'Every `git commit` message: `type(scope): imperative summary`, at most 72 characters. Scopes: `app`, `store`, `ui`.',
      ),
    });
    expect(run(idx, 'git commit -m "fix(store): close the pool before deleting the db file"')).toEqual([]);
    expect(run(idx, 'git commit -m "update stuff"')).toEqual(['conventional-commits']);
  });
});

describe('calls that only report', () => {
  it('reads status and list subcommands as looking, after a word that acts too', () => {
    expect(looks('cd api && bin/rails db:migrate:status | tail -20')).toBe(true);
    expect(looks("git tag --list 'v2026.11.*' --sort=-creatordate")).toBe(true);
    expect(looks('cargo sqlx migrate info --source crates/store/migrations')).toBe(true);
    expect(looks('npx prisma migrate status')).toBe(true);
    expect(looks('pnpm --filter @app/worker exec wrangler tail --env staging')).toBe(true);
  });

  it('and not what changes something', () => {
    expect(looks('git tag v1.2.0')).toBe(false);
    expect(looks('bin/rails db:migrate')).toBe(false);
    expect(looks('npx prisma migrate dev --name add_index')).toBe(false);
    expect(looks('terraform apply plan')).toBe(false);
    expect(looks('pnpm --filter @app/worker exec wrangler deploy')).toBe(false);
  });
});

describe('a folder a memory scopes one kind of work to', () => {
  const idx = kb({
    'documents/migrations.md': memory(
      'safe-migrations',
      'Postgres migrations must pass strong_migrations',
      'Indexes are added concurrently.\n\n**Why:** a lock took the site down.\n\n**How to apply:** any new migration or schema change in `api/`.',
    ),
  });
  const edit = (file_path: string, new_string: string): string[] => ids(idx, 'Edit', { file_path, old_string: 'x', new_string });

  it('is not every edit there: a view is not a migration', () => {
    expect(edit('/home/dev/shop/api/app/views/orders/show.html.erb', '<td><%= number_to_currency(o.total) %></td>')).toEqual([]);
    expect(edit('/home/dev/shop/api/db/migrate/20260101_add_index.rb', 'add_index :orders, :user_id')).toEqual(['safe-migrations']);
  });
});
