/**
 * The CLI ends a failed run by the error's stable code: each code's exit status and message, a code
 * that only looks like a class name changes nothing, and anything unknown is one line, exit 0.
 */
import { describe, it, expect } from '@jest/globals';
import { FAILURES, exitStatusOf } from '../../cli/exit-status.js';
import { NotFoundError, UsageError } from '../../core/errors.js';
import { IndexFailed } from '../../pipeline/run-index.js';
import { NoteEditError, NoteWriteError } from '../../sinks/note-writer.js';
import { TeamError, type TeamErrorCode } from '../../sources/team/settings.js';
import { PullError, type PullErrorCode } from '../../sources/models/pull-errors.js';
import { StateDirError } from '../../io/private-fs.js';

function ended(err: unknown): { status: number; stderr: string } {
  let stderr = '';
  const status = exitStatusOf(err, { stderr: (s) => (stderr += s) });
  return { status, stderr };
}

const TEAM_CODES: TeamErrorCode[] = [
  'E_TEAM',
  'E_TEAM_BUSY',
  'E_TEAM_NOT_CONFIGURED',
  'E_TEAM_NO_KB',
  'E_TEAM_NO_SCHEMA',
  'E_TEAM_PRIVILEGE',
  'E_TEAM_SCHEMA_NEWER',
  'E_TEAM_SCHEMA_OLD',
  'E_TEAM_TLS',
  'E_TEAM_URL',
];
const PULL_CODES: PullErrorCode[] = ['E_PULL_NETWORK', 'E_PULL_HTTP', 'E_PULL_SIZE', 'E_PULL_IO'];

/** Each failure as the code throws it, with the exit status and stderr the CLI must give. */
const CASES: [string, Error, number, string][] = [
  ['E_USAGE', new UsageError('--limit must be an integer'), 2, 'recall: error: --limit must be an integer\n'],
  ['E_NOT_FOUND', new NotFoundError('no note lrn-x'), 1, 'recall: no note lrn-x\n'],
  ['E_INDEX_FAILED', new IndexFailed('indexing /kb failed: disk full'), 1, 'recall: indexing /kb failed: disk full\n'],
  ['E_NOTE_EDIT', new NoteEditError('frontmatter is not a mapping'), 1, 'recall: frontmatter is not a mapping\n'],
  ['E_NOTE_WRITE', new NoteWriteError('forget failed, nothing written'), 1, 'recall: forget failed, nothing written\n'],
  ['E_STATE_DIR', new StateDirError('state dir /s belongs to uid 7'), 2, 'recall: error: state dir /s belongs to uid 7\n'],
  ...TEAM_CODES.map((c): [string, Error, number, string] => [c, new TeamError(c, `store says ${c}`), 1, `recall: team: store says ${c}\n`]),
  ...PULL_CODES.map((c): [string, Error, number, string] => [
    c,
    new PullError(c, `hub says ${c}`),
    1,
    `recall: models pull failed: hub says ${c}\n`,
  ]),
];

describe('exit status by error code', () => {
  it.each(CASES)('%s: exit status and one-line message', (code, err, status, stderr) => {
    expect((err as { code?: string }).code).toBe(code);
    expect(ended(err)).toEqual({ status, stderr });
  });

  it('every code the CLI maps has a case above (a new code needs its expected answer here)', () => {
    expect(CASES.map((c) => c[0]).sort()).toEqual(Object.keys(FAILURES).sort());
  });

  it('maps by code, not by class name: an error from another realm (a plain object) with a code is mapped', () => {
    expect(ended({ code: 'E_USAGE', message: 'bad flag\nsecond line' })).toEqual({ status: 2, stderr: 'recall: error: bad flag\n' });
    const named = new Error('looks like a usage error');
    named.name = 'UsageError';
    expect(ended(named)).toEqual({ status: 0, stderr: 'recall: internal error: looks like a usage error\n' });
  });

  it('a multi-line failure message is cut to its first line', () => {
    expect(ended(new TeamError('E_TEAM', 'cannot connect\n  at Socket.connect'))).toEqual({
      status: 1,
      stderr: 'recall: team: cannot connect\n',
    });
  });

  it.each<[string, unknown, string]>([
    ['an Error with a multi-line message', new Error('boom\n    at x (y.js:1:1)'), 'boom'],
    ['an Error with an empty message', new TypeError(''), 'TypeError'],
    ['a node error with its own code', Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }), 'ENOENT: no such file'],
    ['a thrown string of two lines', 'first\nsecond', 'first'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['an object without a prototype', Object.create(null) as unknown, 'unknown error'],
    ['a number', 42, '42'],
  ])('an unknown error (%s) is one line on stderr, exit 0', (_name, err, said) => {
    const r = ended(err);
    expect(r).toEqual({ status: 0, stderr: `recall: internal error: ${said}\n` });
    expect(r.stderr.split('\n')).toHaveLength(2);
  });
});
