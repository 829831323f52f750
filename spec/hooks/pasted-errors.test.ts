/** The error texts a prompt pastes, as the words that tell one error from another (hooks/pasted-errors.ts). */
import { describe, it, expect } from '@jest/globals';
import {
  coversFewPastedErrors,
  missesPastedErrors,
  namesNoPastedError,
  pastedErrorNames,
  pastedErrorStems,
} from '../../hooks/pasted-errors.js';
import { stemOf } from '../../core/stems.js';

const stems = (prompt: string): string[] => [...pastedErrorStems(prompt)].sort();

describe('pastedErrorStems', () => {
  it("reads a quoted error's distinguishing words, camelCase split and whole", () => {
    expect(stems('keep hitting `sqlite3.OperationalError: database is locked`')).toEqual(
      ['sqlite3', 'operationalerror', 'operational', 'database', 'locked'].map(stemOf).sort(),
    );
    expect(stems("fails with 'Could not resolve to a node with the global id of ...'")).toEqual(
      ['resolve', 'node', 'global'].map(stemOf).sort(),
    );
    expect(stems('and then it dies on `no matches found: ~/exports/*.json`')).toEqual(['matches'].map(stemOf).sort());
  });

  it('reads not what the error names of this one case: a quoted branch or file, a path', () => {
    expect(stems("`git worktree add` gives `fatal: 'feat/login' is already checked out at '/Users/me/src/app-login'`")).toEqual(
      ['already', 'checked'].map(stemOf).sort(),
    );
  });

  it('reads no error from code that only names one (`handleError`), but does from a raised one with its message', () => {
    expect(stems('rename `handleError` to `onError` everywhere')).toEqual([]);
    expect(stems('got `TypeError undefined is not a function` again')).toContain(stemOf('undefined'));
  });

  it('reads an exception named alone (`KeyError`), not a camelCase handler (`handleError`)', () => {
    expect(stems('I keep getting `ModuleNotFoundError` when I run the script')).toContain(stemOf('module'));
    expect(stems('getting a `RecursionError` from the parser')).toContain(stemOf('recursion'));
    expect(stems('why does `handleError` get called twice?')).toEqual([]);
  });

  it('reads nothing from a quote that is no error, nor from an unquoted one', () => {
    expect(stems('set `journal_mode` to "wal" and run `VACUUM`')).toEqual([]);
    expect(stems('the build failed with a weird error about the cache')).toEqual([]);
  });

  it("reads no quote from the apostrophes of contractions and possessives (don't ... it's)", () => {
    expect(stems("I don't get it: the build failed again and it's blocking the release")).toEqual([]);
    expect(stems("the job's runner can't start, the user's shell failed on login")).toEqual([]);
    expect(stems("it fails with 'permission denied' on the user's key")).toEqual(['permission'].map(stemOf));
  });

  it('reads at most the first 4,000 characters, quickly, whatever the prompt holds', () => {
    const hostile = `${'`'}${'a'.repeat(290)} error${'`'} `.repeat(2000);
    const t0 = process.hrtime.bigint();
    expect(pastedErrorStems(hostile).size).toBeLessThanOrEqual(2);
    expect(Number(process.hrtime.bigint() - t0) / 1e6).toBeLessThan(1500);
  });
});

describe('missesPastedErrors', () => {
  it('is true only when the prompt quotes an error and the note holds none of its words', () => {
    const errors = pastedErrorStems('`sqlite3.OperationalError: database is locked`');
    expect(missesPastedErrors(errors, 'SQLite WAL grows unbounded without checkpointing')).toBe(true);
    expect(missesPastedErrors(errors, 'Writers get "database is locked": set busy_timeout')).toBe(false);
    expect(missesPastedErrors(new Set(), 'anything')).toBe(false);
  });
});

describe('coversFewPastedErrors', () => {
  it('is true when a note holds under a third of the words of a pasted error of three words or more', () => {
    const errors = pastedErrorStems('`rpc error: code = ResourceExhausted desc = tenant 5521 over ingest quota`');
    expect(coversFewPastedErrors(errors, 'ResourceExhausted desc = grpc: received message larger than max')).toBe(true);
    expect(coversFewPastedErrors(errors, 'ResourceExhausted from the tenant ingest quota: desc says over')).toBe(false);
    expect(coversFewPastedErrors(pastedErrorStems('`KeyError: foo`'), 'nothing of it')).toBe(false);
  });
});

describe('pastedErrorNames', () => {
  const names = (prompt: string): string[] => [...pastedErrorNames(prompt)].sort();
  it('reads the snake_case names and system error codes of a quoted error, lower-cased', () => {
    expect(names('new connections fail with `FATAL: no more connections allowed (max_client_conn)` from pgbouncer')).toEqual([
      'max_client_conn',
    ]);
    expect(names('fails at psycopg2 with `Error: pg_config executable not found.`')).toEqual(['pg_config']);
    expect(names('tests fail with `connect ECONNREFUSED 127.0.0.1:6379` from ioredis')).toEqual(['econnrefused']);
    expect(names('`Error [ERR_REQUIRE_ESM]: require() of ES Module` on boot')).toEqual(['err_require_esm']);
  });

  it('reads no name from an exception class, an ALL-CAPS word, a quoted value or a quote that is no error', () => {
    expect(names('`java.lang.IllegalStateException: Could not find a valid Docker environment`')).toEqual([]);
    expect(names('`FATAL ERROR: EMPTY RESPONSE` again')).toEqual([]);
    expect(names("`KeyError: 'zone_code'` though the header has it")).toEqual([]);
    expect(names('set `max_client_conn` to 500')).toEqual([]);
  });
});

describe('namesNoPastedError', () => {
  it('is true only when the prompt quotes a named error and the note names none of it', () => {
    const named = pastedErrorNames('`FATAL: no more connections allowed (max_client_conn)`');
    expect(namesNoPastedError(named, 'PgBouncer in transaction mode breaks named prepared statements for each client connection')).toBe(
      true,
    );
    expect(namesNoPastedError(named, 'Raise MAX_CLIENT_CONN with the pool size')).toBe(false);
    expect(namesNoPastedError(new Set(), 'anything')).toBe(false);
  });
});
