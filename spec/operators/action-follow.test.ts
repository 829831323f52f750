/**
 * Precision of the action matcher on a memory folder split into two apps (an Android app and a Rails
 * API): a top folder a "How to apply" scopes its work to, a run that already does what a memory
 * says, the project's own name, a language's own imports, platform names as languages.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, ids, info, kb, memory } from '../helpers/action.js';

const notes = kb({
  'documents/api-errors.md': memory(
    'rails-api-errors',
    'Rails API raises typed Errors classes; no bare rescue in controllers',
    'Raise `Errors::NotFound` and friends.\n\n**How to apply:** When writing error handling, new error cases or status codes in `api/`.',
  ),
  'documents/protos.md': memory(
    'proto-regenerate',
    'Regenerate clients after schema edits',
    'Generated code is never edited by hand.\n\n**How to apply:** After any edit under `proto/`, run `just proto`.',
  ),
  'documents/android-tests.md': memory(
    'android-unit-tests-mockk',
    'Android unit tests use JUnit5 and MockK; run one module, not the whole build',
    "Run only the module under change: `./gradlew :feature:checkout:testDebugUnitTest` (or `--tests '*CartViewModelTest'`). `./gradlew test` takes 20 minutes.\n\n**How to apply:** When writing, fixing or running Kotlin unit tests under `android/`.",
  ),
  'documents/lint.md': memory(
    'lint-before-commit',
    'Lint before committing',
    'Ruby: run `bin/rubocop-changed` from `api/`. Never run `bundle exec rubocop -A` on the whole repo.',
  ),
  'documents/device.md': memory(
    'user-test-device',
    'Two devices are attached; target the emulator',
    'Without a target, `adb install` and `adb shell` fail.\n\n**How to apply:** For any adb command, pass `-s emulator-5554` unless she says to use the phone.',
    'user',
  ),
});

const edit = (file: string, oldString: string, newString: string): string[] =>
  ids(notes, 'Edit', { file_path: `/home/dev/cartwheel/${file}`, old_string: oldString, new_string: newString }, '/home/dev/cartwheel');
const run = (command: string): string[] => ids(notes, 'Bash', { command }, '/home/dev/cartwheel');

describe('a top folder a How to apply names', () => {
  it('scopes the work it names, and is no trigger for every edit there', () => {
    expect(edit('api/app/models/money.rb', '  def to_s', '  def to_s\n    format("%.2f", cents / 100.0)')).toEqual([]);
  });

  it('is a trigger after words that say any change there', () => {
    expect(edit('proto/shop/v1/order.proto', '  string id = 1;', '  string id = 1;\n  string note = 2;')).toEqual(['proto-regenerate']);
  });
});

describe('a run that does what the memory says', () => {
  it('adds an option the memory recommends in another span', () => {
    const reached = matchAction(
      notes,
      call('Bash', { command: "cd android && ./gradlew :feature:checkout:testDebugUnitTest --tests '*CartViewModelTest'" }),
      '/home/dev/cartwheel',
      { info, threshold: 0 },
    ).map((m) => m.id);
    expect(reached).not.toContain('android-unit-tests-mockk');
    expect(run('cd android && ./gradlew test')).toEqual(['android-unit-tests-mockk']);
  });

  it('runs a script of the project the memory names by its path (`bin/rubocop-changed`)', () => {
    expect(run('cd api && bin/rubocop-changed')).toEqual([]);
  });

  it('passes the option the memory says to pass', () => {
    expect(run('adb -s emulator-5554 shell am start -n com.cartwheel.app/.MainActivity')).toEqual([]);
    expect(run('adb shell am start -n com.cartwheel.app/.MainActivity')).toEqual(['user-test-device']);
  });
});

describe('what says where a call is, or in which language, not what it does', () => {
  const why = (file: string, content: string): string[] =>
    matchAction(notes, call('Write', { file_path: `/home/dev/cartwheel/${file}`, content }), '/home/dev/cartwheel', {
      info,
      threshold: 0,
    }).flatMap((m) => m.why);

  it("counts neither the project's own name nor the language's own imports", () => {
    const said = why('android/core/common/Geo.kt', 'package com.cartwheel.common\n\nimport kotlin.math.*\n\nfun haversine() = 0.0\n');
    expect(said.filter((w) => /cartwheel|import:kotlin/.test(w))).toEqual([]);
  });

  it('reads a platform in a rule name as its language: an Android test rule is not for a Ruby test run', () => {
    expect(run('cd api && bin/rspec spec/requests/tips_spec.rb')).not.toContain('android-unit-tests-mockk');
  });
});

describe('places and runs a memory is about, in a monorepo', () => {
  const mono = kb({
    'documents/env.md': memory(
      'user-dev-env',
      'User is on WSL2, repo at ~/plotline inside WSL',
      'The repo is `/home/dev/plotline` on the Linux filesystem, not under `/mnt/c`.\n\n**How to apply:** Docker errors, commands they will paste.',
      'user',
    ),
    'documents/api-errors.md': memory(
      'api-error-handling',
      'Services throw domain errors mapped by one filter',
      'Domain errors only.\n\n**How to apply:** New endpoints and error paths in `apps/api`.',
    ),
    'documents/test-commands.md': memory(
      'test-commands',
      'Run tests through turbo with a package filter; never bare vitest',
      'Watch mode hangs.\n\n**How to apply:** Every time I run tests, pick the narrowest filter.',
    ),
  });
  const write = (file: string, content: string): string[] =>
    ids(mono, 'Write', { file_path: `/home/dev/plotline/${file}`, content }, '/home/dev/plotline');

  it('takes no absolute path of the checkout for a place its rule names', () => {
    expect(write('apps/web/src/Header.module.css', '.header { gap: 0.75rem; }')).toEqual([]);
  });

  it('takes a folder of one component under layout folders (`apps/api`) for a top folder', () => {
    expect(write('apps/api/src/units/units.module.ts', 'export class UnitsModule {}')).toEqual([]);
  });

  it('reads a memory whose summary speaks only of running tests as about runs, not about writing a test', () => {
    expect(write('packages/shared/src/money.spec.ts', "import { it } from 'vitest';\nit('splits', () => {});")).toEqual([]);
    expect(ids(mono, 'Bash', { command: 'npx vitest packages/shared' }, '/home/dev/plotline')).toEqual(['test-commands']);
  });
});

describe('a named command, a report and a numbered step', () => {
  const notes2 = kb({
    'documents/tests.md': memory(
      'test-commands',
      'Run tests through turbo with a package filter',
      'Never the root `pnpm test` (14 minutes, includes e2e).\n\n**How to apply:** Every time I run tests.',
    ),
    'documents/deps.md': memory('new-dependencies', 'Ask before adding a package like `date-fns`', 'Justify it first.'),
    'documents/migrations.md': memory(
      'db-migrations',
      'Schema changes go through generated migrations',
      'Steps:\n1. Edit the schema.\n2. `pnpm --filter @shop/db db:generate --name <snake_case_name>` writes the SQL.',
    ),
  });
  const found = (command: string): string[] =>
    matchAction(notes2, call('Bash', { command }), '/home/dev/shop', { info, threshold: 0 }).map((m) => m.id);

  it("takes a named command's subcommand as the call's own, not a word further on", () => {
    expect(found('pnpm test')).toContain('test-commands');
    const why = matchAction(notes2, call('Bash', { command: 'pnpm turbo run test --filter=@shop/api' }), '/home/dev/shop', {
      info,
      threshold: 0,
    }).flatMap((m) => m.why);
    expect(why).not.toContain('command:pnpm test');
  });

  it('reads `pnpm why` as a report: nothing is about it', () => {
    expect(found('pnpm why date-fns -r')).toEqual([]);
  });

  it('reads a numbered step that opens with a command as what to run: running it follows the note', () => {
    expect(found('pnpm --filter @shop/db db:generate --name add_priority')).not.toContain('db-migrations');
  });
});

describe("the project's own name in a package scope", () => {
  const scoped = kb({
    'documents/orm.md': memory('orm-drizzle', 'The plotline db package moved to Drizzle', 'Plotline db code uses Drizzle.', 'project'),
  });
  it('joins no phrase of a note\'s subject (`@plotline/db` and "plotline db")', () => {
    const why = matchAction(scoped, call('Bash', { command: 'pnpm --filter @plotline/db build' }), '/home/dev/plotline', {
      info,
      threshold: 0,
    }).flatMap((m) => m.why);
    expect(why.filter((w) => w.startsWith('phrase:'))).toEqual([]);
  });
});

describe('a call that reads a file', () => {
  const pinned = kb({
    'documents/catalog.md': memory(
      'deps-version-catalog',
      'Android deps only via gradle/libs.versions.toml',
      'Add new libraries to `libs.versions.toml`, never as coordinates in a build file.',
    ),
    'documents/when.md': `---\nid: lrn-read-when\ntitle: Secrets files\napplies_when: ["secrets/**"]\n---\nNever print them.\n`,
  });
  it('gets nothing from the file it reads, whatever names it; an applies_when glob still reaches it', () => {
    expect(ids(pinned, 'Read', { file_path: '/home/dev/shop/android/gradle/libs.versions.toml' })).toEqual([]);
    expect(
      ids(pinned, 'Edit', { file_path: '/home/dev/shop/android/gradle/libs.versions.toml', old_string: 'a', new_string: 'b' }),
    ).toContain('deps-version-catalog');
    expect(ids(pinned, 'Read', { file_path: '/home/dev/shop/secrets/prod.env' })).toEqual(['lrn-read-when']);
  });
});
