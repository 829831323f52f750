/**
 * Replacements a Claude Code memory states in words, without a `[[link]]`: "this replaced the old
 * compose test database: `compose.test.yml`, port 5433 and `-PtestDb` are gone". The older memory,
 * whose commands name what is gone, ranks below its replacement.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { statedReplacements } from '../../core/note/index.js';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';

const OLD_BODY =
  "ITs don't start their own database. Bring it up first:\n\n`docker compose -f compose.test.yml up -d testdb`\n\nThen run `./gradlew integrationTest -PtestDb=local`.";
const NEW_BODY =
  'DB tests are *IT classes with `@PostgresIT` (Testcontainers). Run `./gradlew :api:integrationTest`.\n\nSince July this replaced the old compose test database: `compose.test.yml`, port 5433 and `-PtestDb` are gone.';
const mem = (key: string, body: string, path = `memory/${key}.md`) => ({ key, path, body, memoryType: 'project' });

describe('statedReplacements', () => {
  it('pairs a memory with the older one whose code it says is gone', () => {
    expect(statedReplacements([mem('compose-db', OLD_BODY), mem('testcontainers', NEW_BODY)])).toEqual([['compose-db', 'testcontainers']]);
  });

  it('needs a clause that says something is gone, and two of its code words in the older memory', () => {
    const mentions = NEW_BODY.replace('replaced the old compose test database', 'sits beside the compose test database').replace(
      'are gone',
      'are there',
    );
    expect(statedReplacements([mem('compose-db', OLD_BODY), mem('testcontainers', mentions)])).toEqual([]);
    const one = NEW_BODY.replace(', port 5433 and `-PtestDb` are gone', ' is gone');
    expect(statedReplacements([mem('compose-db', OLD_BODY), mem('testcontainers', one)])).toEqual([]);
  });

  it('reads a library or class named as code without backticks as a span said to be gone', () => {
    const unittest = 'Tests: `unittest.TestCase`, `factory-boy` factories, `self.redis = MockRedis()` for the cache.';
    const pytest = 'Fixtures live in `conftest.py`; factory-boy is gone from the lockfile and MockRedis was removed.';
    expect(statedReplacements([mem('unittest', unittest), mem('pytest', pytest)])).toEqual([['unittest', 'pytest']]);
    // Hyphenated English said to be gone names nothing of the older memory's code.
    const english = 'Fixtures live in `conftest.py`; the long-running setup is gone from the lockfile and MockRedis was removed.';
    expect(statedReplacements([mem('unittest', unittest), mem('pytest', english)])).toEqual([]);
    // Where something was removed from, or what removed it, is not what is gone.
    const fly = 'Deploy staging with `fly deploy -c fly.staging.toml`; production with `fly deploy -c fly.toml`.';
    const where = 'The healthcheck section was removed from fly.staging.toml and fly.toml.';
    expect(statedReplacements([mem('fly-deploys', fly), mem('healthcheck', where)])).toEqual([]);
    const vitest = 'Tests use `vitest.config.ts` and `vitest.setup.ts`.';
    expect(
      statedReplacements([mem('vitest', vitest), mem('jest-gone', 'vitest.config.ts and vitest.setup.ts replaced jest.config.js.')]),
    ).toEqual([]);
  });

  it('needs the two words from two spans it says are gone, not one command that changed', () => {
    const gradle = 'Run `./gradlew build` before you push: CI rejects what fails locally.';
    const detekt = '`./gradlew build` no longer runs `detekt`; run `./gradlew detekt` yourself.';
    expect(statedReplacements([mem('build-before-push', gradle), mem('detekt', detekt)])).toEqual([]);
    const up = 'Start the dependencies with `docker compose up -d redpanda` before the ITs.';
    const v2 = 'Compose v1 is gone: `docker-compose up` is now `docker compose up`.';
    expect(statedReplacements([mem('deps-up', up), mem('compose-v2', v2)])).toEqual([]);
  });

  it('pairs memories of one folder only, and neither of two that say it of each other', () => {
    expect(statedReplacements([mem('compose-db', OLD_BODY, 'a/memory/x.md'), mem('testcontainers', NEW_BODY, 'b/memory/y.md')])).toEqual(
      [],
    );
    const back = `${OLD_BODY}\n\nThe \`@PostgresIT\` and \`./gradlew :api:integrationTest\` setup is gone.`;
    expect(statedReplacements([mem('compose-db', back), mem('testcontainers', NEW_BODY)])).toEqual([]);
  });

  it('takes what comes after "use" for the replacement, not for what is gone', () => {
    const pnpm = mem('pnpm-only', 'Since May `npm install` and `npm ci` are gone, use `pnpm install` or `pnpm test`.');
    const older = mem('tests', 'Run `pnpm install` first, then `pnpm test --filter api`.');
    expect(statedReplacements([older, pnpm])).toEqual([]);
  });

  it('replaces at most three memories: one that would replace more replaces none', () => {
    const olders = ['a', 'b', 'c', 'd'].map((k) => mem(k, OLD_BODY));
    expect(statedReplacements([...olders.slice(0, 3), mem('testcontainers', NEW_BODY)])).toHaveLength(3);
    expect(statedReplacements([...olders, mem('testcontainers', NEW_BODY)])).toEqual([]);
  });

  it("pairs a memory whose replacement clause names the older one's subject in plain words", () => {
    const named = (key: string, name: string, body: string) => ({ ...mem(key, body), frontmatter: { name } });
    const workers = named('workers', 'Queue workers on the web servers', 'Workers are `queue:work` under Supervisor on ost-web-1.');
    const horizon = named(
      'horizon',
      'horizon-and-workers',
      'Horizon replaced the per-server queue workers in August. Restart with `horizon:terminate`.',
    );
    expect(statedReplacements([workers, horizon])).toEqual([['workers', 'horizon']]);
    // The newer memory's own subject goes on: the session store is still there, on Redis now.
    const ttl = named('ttl', 'session-store-ttl', 'Sessions expire after 12 hours of inactivity.');
    const redis = named('redis', 'session-store-on-redis', 'Redis replaced Memcached for the session store in May.');
    expect(statedReplacements([ttl, redis])).toEqual([]);
    // A clause that says nothing is gone names nothing.
    const beside = named('horizon', 'horizon-and-workers', 'Horizon runs beside the per-server queue workers.');
    expect(statedReplacements([workers, beside])).toEqual([]);
  });

  it('reads only memories: a learning that says something is gone replaces nothing this way', () => {
    expect(statedReplacements([mem('compose-db', OLD_BODY), { key: 'l', path: 'memory/l.md', body: NEW_BODY }])).toEqual([]);
  });
});

describe('a recall over such a memory folder', () => {
  let kb: TempKb | null = null;
  afterEach(() => {
    kb?.cleanup();
    kb = null;
  });

  it('returns the replacement and leaves out the memory it replaces, saying why', async () => {
    kb = tempKb();
    const memory = (name: string, description: string, body: string) =>
      `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: project\n---\n${body}\n`;
    kb.write(
      'documents/project_test_db_compose.md',
      memory('integration-test-db-compose', 'Integration tests need the compose test database on localhost:5433', OLD_BODY),
    );
    kb.write(
      'documents/feedback_tests.md',
      memory('tests-junit-testcontainers', 'DB tests are IT classes with PostgresIT (Testcontainers)', NEW_BODY),
    );
    const r = await recallIn(kb, 'integration tests fail with connection refused on localhost:5433, bring the test database up', {
      floor: 0,
    });
    expect(ids(r)).toContain('tests-junit-testcontainers');
    expect(ids(r)).not.toContain('integration-test-db-compose');
    expect(r.outcome!.drops).toContainEqual(
      expect.objectContaining({
        key: 'integration-test-db-compose',
        stage: 'superseded',
        reason: expect.stringMatching(/superseded by tests-junit-testcontainers/),
      }),
    );
  });
});

describe('statedReplacements over many candidates that all say the same thing is gone', () => {
  it('answers quickly (240 candidates took seconds when each pair scanned all the others)', () => {
    const notes = Array.from({ length: 240 }, (_, i) => mem(`n${i}`, `The \`alpha beta\` and \`gamma delta\` are gone ${i}.`));
    const t0 = performance.now();
    expect(statedReplacements(notes)).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
