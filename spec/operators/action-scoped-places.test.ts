/**
 * Precision of the action matcher on a monorepo's memories: a place a rule scopes one kind of work
 * to ("any test under `apps/api/src/**`"), a whole component its rule names (`apps/api`), log lines
 * of ids, sizes and durations, and ids a memory says to log.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote } from '../../core/note/index.js';
import { placesOf } from '../../operators/action/places.js';
import { spanStances } from '../../operators/action/index.js';
import { ids, kb, memory } from '../helpers/action.js';

const notes = kb({
  'documents/mocks.md': memory(
    'no-db-mocks',
    'Tests that touch the database use a real Postgres',
    'Use `createTestDb()`, never a mocked `@plotline/db`.\n\n**How to apply:** Writing or fixing any test under `apps/api/src/**` where the code under test hits the DB.',
  ),
  'documents/errors.md': memory(
    'api-error-handling',
    'Services throw domain errors; controllers map them',
    'Domain errors live in `apps/api/src/common/errors.ts`; the filter in `apps/api` maps them.\n\n**How to apply:** Any new failure path in apps/api.',
  ),
  'documents/logs.md': memory(
    'logging-privacy',
    'Never log payloads or headers; log ids and counts',
    'Log `tenant_id`, `batch_id`, sizes and counts instead. Never log `req.Body`.\n\n**How to apply:** Every new or changed log line.',
  ),
});
const at = (file: string, content: string): string[] =>
  ids(notes, 'Write', { file_path: `/home/dev/plotline/${file}`, content }, '/home/dev/plotline');

describe('a place a rule scopes a kind of work to', () => {
  it('holds that work there: a test under `apps/api/src`', () => {
    expect(at('apps/api/src/units/units.service.spec.ts', "import { it } from 'vitest';\nit('archives', () => {});")).toContain(
      'no-db-mocks',
    );
  });

  it('holds no other work there: a service file under `apps/api/src`', () => {
    expect(at('apps/api/src/units/units.service.ts', 'export class UnitsService {}')).not.toContain('no-db-mocks');
  });

  it('is no place when the words before it name no work recall reads ("any new failure path in")', () => {
    const globs = placesOf(
      parseNote(memory('x', 'y', 'Body.\n\n**How to apply:** Any new failure path in `apps/api`.'), 'documents/x.md', 'documents'),
    );
    expect(globs).toEqual([]);
  });
});

describe('a repository slug a rule names', () => {
  it('is no place because the description names a host of the same org (`brindle.atlassian.net`)', () => {
    const globs = placesOf(
      parseNote(
        memory(
          'jira-projects',
          'Tickets live in Jira (brindle.atlassian.net); GitHub Issues are off',
          'Board: https://brindle.atlassian.net/jira/PAY.\n\n- GitHub Issues are off on `brindle/tollgate`.',
        ),
        'documents/j.md',
        'documents',
      ),
    );
    expect(globs).toEqual([]);
  });
});

describe('a file name in the description', () => {
  it('is no host: its words are the subject (`docker-compose.dev.yml`)', () => {
    const globs = placesOf(
      parseNote(
        memory(
          'stack-files',
          'Local stack lives in docker-compose.dev.yml',
          'The stack runs Postgres and Redis.\n\n- Edit the files under `deploy/compose/` with care.',
        ),
        'documents/s.md',
        'documents',
      ),
    );
    expect(globs.map((p) => p.re.source)).toEqual(['(?:^|\\/)deploy\\/compose\\/.*$']);
  });
});

describe('a whole component a rule names', () => {
  it('is no place for every edit in it (`apps/api` in "api-error-handling")', () => {
    expect(at('apps/api/src/work-orders/work-orders.service.ts', 'export const x = 1;')).not.toContain('api-error-handling');
  });
});

describe('log lines', () => {
  const edit = (file: string, line: string): string[] =>
    ids(notes, 'Edit', { file_path: `/home/dev/skerry/${file}`, old_string: '}', new_string: `${line}\n}` }, '/home/dev/skerry');

  it('of ids, sizes and durations only are what a logging rule asks for', () => {
    expect(edit('internal/ingest/handler.go', '\th.log.Info("batch accepted", "tenant_id", b.TenantId, "bytes", proto.Size(b))')).toEqual(
      [],
    );
    expect(edit('cmd/ingestd/main.go', '\tdefer func() { logger.Info("ingestd stopped", "uptime", time.Since(start)) }()')).toEqual([]);
  });

  it('are read from the log call, not the first parenthesis of the line', () => {
    expect(edit('cmd/ingestd/main.go', '\tdefer func() { logger.Info("stopped", "body", req.Body) }()')).toEqual(['logging-privacy']);
  });

  it('take the ids a memory says to log as what it recommends', () => {
    const stance = (text: string) => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);
    expect(stance('Log `user_id`, `order_id` instead.')).toEqual(['user_id:do', 'order_id:do']);
    expect(stance('Never log `req.body`.')).toEqual(['req.body:-']);
  });
});
