/**
 * How a failed `recall` run ends, in one place: the error's stable `code` (never its class name)
 * gives the exit status (2 = usage, 1 = a named failure that is the command's answer) and the prefix
 * of its one-line message on stderr. Anything else is a runtime problem: said on one line, exit 0,
 * as in the reference (a runtime problem never fails the caller). Types only are imported, so the
 * hook and query paths load none of the modules these errors come from.
 */
import { errorMessage, type UsageError, type NotFoundError } from '../core/errors.js';
import type { IndexFailed } from '../pipeline/run-index.js';
import type { NoteEditError, NoteWriteError } from '../sinks/note-writer.js';
import type { TeamErrorCode } from '../sources/team/index.js';
import type { PullErrorCode } from '../sources/models/index.js';
import type { StateDirError } from '../io/private-fs.js';
import type { CliIo } from './shared.js';

export type FailureCode =
  | UsageError['code']
  | NotFoundError['code']
  | IndexFailed['code']
  | NoteEditError['code']
  | NoteWriteError['code']
  | TeamErrorCode
  | PullErrorCode
  | StateDirError['code'];

export interface Failure {
  status: 1 | 2;
  /** What the message is prefixed with after `recall: `. */
  prefix: string;
}

const ANSWER: Failure = { status: 1, prefix: '' };
const TEAM: Failure = { status: 1, prefix: 'team: ' };
const PULL: Failure = { status: 1, prefix: 'models pull failed: ' };

/** Every failure code with its exit status and prefix (the type makes a new code be listed here). */
export const FAILURES: Readonly<Record<FailureCode, Failure>> = {
  E_USAGE: { status: 2, prefix: 'error: ' },
  E_NOT_FOUND: ANSWER,
  E_INDEX_FAILED: ANSWER,
  E_NOTE_EDIT: ANSWER,
  E_NOTE_WRITE: ANSWER,
  E_TEAM: TEAM,
  E_TEAM_BUSY: TEAM,
  E_TEAM_NOT_CONFIGURED: TEAM,
  E_TEAM_NO_KB: TEAM,
  E_TEAM_NO_SCHEMA: TEAM,
  E_TEAM_PRIVILEGE: TEAM,
  E_TEAM_SCHEMA_NEWER: TEAM,
  E_TEAM_SCHEMA_OLD: TEAM,
  E_TEAM_TLS: TEAM,
  E_TEAM_URL: TEAM,
  E_PULL_NETWORK: PULL,
  E_PULL_HTTP: PULL,
  E_PULL_SIZE: PULL,
  E_PULL_IO: PULL,
  // A state dir of another user: a setting to change, said as a usage error is.
  E_STATE_DIR: { status: 2, prefix: 'error: ' },
};

/** The failure a thrown value stands for, by its `code`; null for anything else (a runtime problem). */
export function failureOf(err: unknown): Failure | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && Object.hasOwn(FAILURES, code) ? FAILURES[code as FailureCode] : null;
}

/** The exit status of a failed run, after saying on stderr, in one line, what went wrong. */
export function exitStatusOf(err: unknown, io: Pick<CliIo, 'stderr'>): number {
  const f = failureOf(err);
  if (f) {
    io.stderr(`recall: ${f.prefix}${errorMessage(err)}\n`);
    return f.status;
  }
  // Runtime problems never fail the caller (reference contract); say what happened on stderr.
  io.stderr(`recall: internal error: ${errorMessage(err)}\n`);
  return 0;
}
