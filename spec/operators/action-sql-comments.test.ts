/**
 * A SQL comment is no part of the statement a call runs: `CREATE INDEX … -- CONCURRENTLY later`
 * builds the index without CONCURRENTLY, so it does not follow a memory that says to build indexes
 * concurrently, and still gets it.
 */
import { describe, it, expect } from '@jest/globals';
import { sqlCommands } from '../../operators/action/sql-files.js';
import { ids, kb, memory } from '../helpers/action.js';

const idx = kb({
  'documents/index.md': memory(
    'concurrent-indexes',
    'Build Postgres indexes concurrently',
    'A plain index build locks writes on `orders`. Add indexes with `CREATE INDEX CONCURRENTLY`.',
  ),
});

describe('a SQL comment in what a call runs', () => {
  it('is left out of its statements', () => {
    expect(sqlCommands('CREATE INDEX a ON b (c) -- CONCURRENTLY later\n; /* CONCURRENTLY */ DROP INDEX d')).toEqual([
      ['CREATE', 'INDEX', 'a', 'ON', 'b', 'c'],
      ['DROP', 'INDEX', 'd'],
    ]);
  });

  it('so a statement that only names the option in a comment does not follow the memory', () => {
    expect(
      ids(idx, 'Bash', { command: 'psql "$DATABASE_URL" -c "CREATE INDEX orders_user_idx ON orders (user_id) /* CONCURRENTLY later */"' }),
    ).toEqual(['concurrent-indexes']);
    expect(
      ids(idx, 'Bash', { command: 'psql "$DATABASE_URL" -c "CREATE INDEX CONCURRENTLY orders_user_idx ON orders (user_id)"' }),
    ).toEqual([]);
  });
});
