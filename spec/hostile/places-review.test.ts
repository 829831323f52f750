/**
 * Hostile review of the places a memory applies to (operators/action/places.ts) and of the memories
 * read as about running tests only (call-work.ts `namedWork`): what a careless note's wording must not
 * turn into a place holding every file, and what must not silence a rule about writing tests.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote } from '../../core/note/index.js';
import { placesOf } from '../../operators/action/places.js';
import { namedWork } from '../../operators/action/call-work.js';
import { ids, kb } from '../helpers/action.js';

const memory = (name: string, description: string, body: string, type = 'feedback'): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`;

/** The places a memory applies to, as the sources of their globs. */
const places = (name: string, description: string, body: string): string[] =>
  placesOf(parseNote(memory(name, description, body), 'documents/m.md', 'documents')).map((p) => p.re.source);

/** Whether a place glob holds this file. */
const holds = (globs: string[], file: string): boolean => globs.some((g) => new RegExp(g).test(file));

describe('a How to apply folder of layout folders only', () => {
  it('is a top folder like `api/`: it counts only after words that say any change there', () => {
    const scoped = places(
      'error-handling',
      'Errors are typed',
      'Typed errors.\n\n**How to apply:** When writing error handling in `src/`.',
    );
    expect(holds(scoped, '/home/dev/shop/src/cart/total.ts')).toBe(false);
    const internal = places(
      'internal-packages',
      'Packages under internal/ export no test helpers',
      'No helpers.\n\n**How to apply:** When adding a package under `internal/`.',
    );
    expect(holds(internal, '/home/dev/shop/internal/kafka/consumer.go')).toBe(false);
    const shared = places(
      'money-rounding',
      'Round money once',
      'Round once.\n\n**How to apply:** When writing money code in `packages/shared`.',
    );
    expect(holds(shared, '/home/dev/shop/packages/shared/src/money.ts')).toBe(false);
  });

  it('still counts after "any edit under"', () => {
    const any = places(
      'internal-api',
      'internal/ is not a public API',
      'Break freely.\n\n**How to apply:** After any edit under `internal/`, run `go vet`.',
    );
    expect(holds(any, '/home/dev/shop/internal/kafka/consumer.go')).toBe(true);
  });
});

describe('a How to apply package folder under a layout folder that holds no components', () => {
  it('is a place as docs/hooks.md says ("under `internal/kafka`"), unlike a component (`apps/api`)', () => {
    const pkg = places(
      'kafka-consumers',
      'Consumers commit offsets after the write',
      'Commit late.\n\n**How to apply:** When changing a consumer under `internal/kafka`.',
    );
    expect(holds(pkg, '/home/dev/shop/internal/kafka/consumer.go')).toBe(true);
    const app = places(
      'api-errors',
      'Domain errors only',
      'Domain errors.\n\n**How to apply:** New endpoints and error paths in `apps/api/src`.',
    );
    expect(holds(app, '/home/dev/plotline/apps/api/src/units.ts')).toBe(false);
  });
});

describe('a How to apply folder written from the checkout (`./apps/api`)', () => {
  it('is the same top folder as `apps/api`', () => {
    const dotted = places(
      'api-errors',
      'Domain errors only',
      'Domain errors.\n\n**How to apply:** New endpoints and error paths in `./apps/api`.',
    );
    expect(holds(dotted, '/home/dev/plotline/apps/api/src/units/units.module.ts')).toBe(false);
    const top = places(
      'api-errors',
      'Domain errors only',
      'Domain errors.\n\n**How to apply:** New endpoints and error paths in `./api/`.',
    );
    expect(holds(top, '/home/dev/plotline/api/src/units.ts')).toBe(false);
  });
});

describe('a folder named by where the checkout sits on one machine', () => {
  const file = '/home/dev/plotline/apps/web/src/Header.module.css';
  it('is no place of a How to apply', () => {
    const abs = places('user-dev-env', 'Repo at /home/dev/plotline', 'WSL2.\n\n**How to apply:** Commands run in `/home/dev/plotline`.');
    expect(holds(abs, file)).toBe(false);
  });

  it('nor a Windows path, in a How to apply or in the rule', () => {
    const win = 'C:/Users/dev/plotline/apps/web/src/Header.module.css';
    const how = places(
      'user-dev-env',
      'Repo at C:/Users/dev/plotline',
      'Windows.\n\n**How to apply:** Commands run in `C:/Users/dev/plotline`.',
    );
    expect(holds(how, win)).toBe(false);
    const rule = places('user-dev-env', 'Repo at C:/Users/dev/plotline', 'The repo is `C:/Users/dev/plotline`, not under `D:/old`.');
    expect(holds(rule, win)).toBe(false);
  });

  it('while a file named by its absolute path still is', () => {
    const hosts = places('nginx-conf', 'Local nginx config', 'Test it first.\n\n**How to apply:** Any edit to `/etc/nginx/nginx.conf`.');
    expect(holds(hosts, '/etc/nginx/nginx.conf')).toBe(true);
  });
});

describe('a memory read as about running tests only', () => {
  it('is not one that also speaks of tests written, added or fixed', () => {
    for (const howTo of [
      'Run tests through turbo; the tests I added last week need the db container.',
      'Run tests through turbo, and when you have written tests, check them in CI.',
      'Every time I run tests, run the tests you fixed first.',
    ])
      expect(namedWork('test-commands', '', `Run tests through turbo with a package filter\n${howTo}`).runOnly).toBe(false);
  });

  it('is one that speaks only of running them, in any wording of the run', () => {
    expect(
      namedWork('test-commands', '', "Don't run tests in watch mode\nEvery time I run tests, pick the narrowest filter.").runOnly,
    ).toBe(true);
    expect(namedWork('test-commands', '', 'Run tests through turbo\nThe tests are table-driven.').runOnly).toBe(false);
    expect(namedWork('test-commands', '', 'Write and run tests with vitest').runOnly).toBe(false);
  });

  it('reads a huge summary in linear time', () => {
    const huge = `${'run '.repeat(50_000)}${' '.repeat(200_000)}${'write x '.repeat(50_000)}${'a'.repeat(200_000)}`;
    const t = process.hrtime.bigint();
    namedWork('test-commands', '', huge);
    expect(Number(process.hrtime.bigint() - t) / 1e6).toBeLessThan(2000);
  });
});

describe('the behaviour the monorepo commit claims', () => {
  const mono = kb({
    'documents/api-errors.md': memory(
      'api-error-handling',
      'Services throw domain errors mapped by one filter',
      'Domain errors only.\n\n**How to apply:** After any edit under `apps/api`, check the filter.',
    ),
  });
  it('a component folder under layout folders counts after "any edit under"', () => {
    expect(
      ids(mono, 'Write', { file_path: '/home/dev/plotline/apps/api/src/units.ts', content: 'export {}' }, '/home/dev/plotline'),
    ).toEqual(['api-error-handling']);
  });
});
