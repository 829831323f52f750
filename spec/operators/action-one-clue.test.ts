/**
 * One clue of a call counts once: an API written twice, a one-word name a note writes that its
 * capitals split into two words, the package every Go file imports. And a member reached through
 * optional chaining is the member a note names.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { compoundsOf } from '../../operators/action/terms.js';
import { call, info, kb, memory } from '../helpers/action.js';

const whys = (idx: ReturnType<typeof kb>, tool: string, input: Record<string, unknown>): Record<string, string[]> =>
  Object.fromEntries(matchAction(idx, call(tool, input), '/home/dev/skerry', { info, threshold: 0, max: 5 }).map((m) => [m.id, m.why]));

describe('a member reached through optional chaining or a non-null assertion', () => {
  it('is the member a note names', () => {
    expect(compoundsOf('ldClient?.variation("bulk-refund",')).toContain('ldclient.variation');
    expect(compoundsOf('client!.query(sql)')).toContain('client.query');
    const idx = kb({
      'flags.md': memory(
        'flag-reads',
        'Flags are read through useFlag',
        'Raw `ldClient.variation("...")` calls are banned; read flags with `useFlag`.',
      ),
    });
    const why = whys(idx, 'Edit', {
      file_path: '/home/dev/skerry/web/Toolbar.tsx',
      old_string: 'a',
      new_string: 'const on = ldClient?.variation("bulk", false);',
    });
    expect(why['flag-reads']).toContain('token:ldclient.variation');
  });
});

describe('an API a call writes more than once', () => {
  it('counts once for a note', () => {
    const idx = kb({
      'errors.md': memory(
        'go-error-wrapping',
        'Go errors are wrapped with fmt.Errorf and %w',
        'Wrap with `fmt.Errorf("decode batch %s: %w", id, err)`.',
      ),
    });
    const code = (n: number): string => Array.from({ length: n }, (_, k) => `\treturn fmt.Errorf("step${k}: %w", err)`).join('\n');
    const once = whys(idx, 'Write', { file_path: '/home/dev/skerry/a.go', content: code(1) })['go-error-wrapping']!;
    const thrice = whys(idx, 'Write', { file_path: '/home/dev/skerry/a.go', content: code(3) })['go-error-wrapping']!;
    expect(thrice.filter((w) => w === 'token:fmt.errorf')).toHaveLength(1);
    expect(thrice).toEqual(once);
  });
});

describe('a one-word name a note writes', () => {
  const idx = kb({
    'staging.md': memory(
      'staging-quirks',
      'staging has single-replica ClickHouse and MinIO',
      'Replication fixes cannot be verified on staging ClickHouse.',
      'project',
    ),
    'pg.md': memory(
      'pg-idle-timeout',
      'Long ETL transactions hit the idle in transaction timeout',
      'Raise `idle_in_transaction_session_timeout` for the etl role only.',
      'project',
    ),
  });

  it('is one clue, not also the words its capitals split it into', () => {
    const why = whys(idx, 'Write', { file_path: '/home/dev/skerry/docs/dev.md', content: 'Start ClickHouse locally.' })['staging-quirks']!;
    expect(why).toContain('token:clickhouse');
    expect(why.filter((w) => w.startsWith('phrase:'))).toEqual([]);
  });

  it('while an identifier that joins the words a note writes side by side still says more than its token', () => {
    const why = whys(idx, 'Bash', { command: `psql -c "ALTER ROLE etl SET idle_in_transaction_session_timeout = '2h'"` })[
      'pg-idle-timeout'
    ]!;
    expect(why).toContain('token:idle_in_transaction_session_timeout');
    expect(why.some((w) => w.startsWith('phrase:'))).toBe(true);
  });
});

describe('the package every Go file imports', () => {
  it('is no word of a note that names one of its functions', () => {
    const idx = kb({
      'sql.md': memory(
        'bound-params',
        'queryd builds SQL with bound parameters, never fmt.Sprintf',
        'Never `fmt.Sprintf` request values into SQL.',
      ),
    });
    const why = whys(idx, 'Write', {
      file_path: '/home/dev/skerry/queryd/cursor.go',
      content: 'return c, fmt.Errorf("parse cursor: %w", err)',
    });
    expect(why['bound-params'] ?? []).not.toContain('word:fmt');
  });
});
