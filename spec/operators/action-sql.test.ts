/**
 * A SQL statement a note quotes is a command: a call that runs it through a database client
 * (`psql -c`, `mysql -e`, over ssh too) or writes it into a `.sql` migration reaches the note, as a
 * call running a quoted shell command does. Another statement does not.
 */
import { describe, it, expect } from '@jest/globals';
import { namedCommands } from '../../operators/action/spans.js';
import { matchAction } from '../../operators/action/index.js';
import { call, ids, info, kb } from '../helpers/action.js';

const idx = kb({
  'documents/invalid-index.md': [
    '---',
    'id: lrn-invalid-index',
    'title: "A failed concurrent index build leaves an INVALID index behind"',
    'key_insight: "A rerun with IF NOT EXISTS silently keeps the invalid index."',
    '---',
    'The migration used `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS`, so the rerun did nothing.',
    '',
  ].join('\n'),
});
const run = (command: string): string[] => ids(idx, 'Bash', { command });

describe('a SQL statement a note quotes', () => {
  it('is read as its keywords, the names of this one case left out', () => {
    expect(namedCommands('ALTER TABLE invoices ADD COLUMN tax_region text;')[0]!.words).toEqual([
      ['alter'],
      ['table'],
      ['add'],
      ['column'],
    ]);
  });

  it('reaches the note from a database client run here or over ssh', () => {
    expect(run('psql "$DATABASE_URL" -c "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS parcels_uidx ON parcels (barcode);"')).toEqual([
      'lrn-invalid-index',
    ]);
    expect(run(`ssh db-1 'psql app --command="create unique index concurrently if not exists a_uidx on a (b)"'`)).toEqual([
      'lrn-invalid-index',
    ]);
  });

  it('reaches it from a migration file that writes it', () => {
    const sql = '-- parcels\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS parcels_uidx ON parcels (barcode);\n';
    expect(ids(idx, 'Write', { file_path: '/home/dev/app/db/migrations/20260520_parcels.sql', content: sql })).toEqual([
      'lrn-invalid-index',
    ]);
  });

  it('not as a statement from another statement, nor from a file that is no SQL', () => {
    // Every word counts as rare in these specs, so shared words still reach the note: what must not
    // is the statement itself.
    const statement = (tool: string, input: Record<string, unknown>): string[] =>
      matchAction(idx, call(tool, input), '/home/dev/app', { info, threshold: 0 }).flatMap((m) =>
        m.why.filter((w) => w.startsWith('command:')),
      );
    expect(statement('Bash', { command: 'psql "$DATABASE_URL" -c "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS p ON p (b)"' })).toEqual([
      'command:create unique index concurrently if not exists',
    ]);
    expect(statement('Bash', { command: 'psql "$DATABASE_URL" -c "CREATE INDEX CONCURRENTLY parcels_idx ON parcels (barcode)"' })).toEqual(
      [],
    );
    const text = 'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS is what the old note said\n';
    expect(statement('Write', { file_path: '/home/dev/app/notes/todo.txt', content: text })).toEqual([]);
  });
});
