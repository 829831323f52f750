/**
 * Typed errors with stable codes. The CLI maps codes (never class names) to exit statuses and
 * messages in one place, cli/exit-status.ts; the errors of other modules (IndexFailed, NoteWriteError,
 * TeamError, PullError, ...) carry codes of the same kind.
 */

export class RecallError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    message: string,
  ) {
    super(message);
    this.name = 'RecallError';
  }
}

/** Bad command-line input: exit 2 with a one-line message. */
export class UsageError extends RecallError<'E_USAGE'> {
  constructor(message: string) {
    super('E_USAGE', message);
    this.name = 'UsageError';
  }
}

/** A note, anchor or log that was asked for by name and does not exist: exit 1 with a one-line message. */
export class NotFoundError extends RecallError<'E_NOT_FOUND'> {
  constructor(message: string) {
    super('E_NOT_FOUND', message);
    this.name = 'NotFoundError';
  }
}

/** An arm that cannot run in this installation (no model, no engine): reported as "unavailable". */
export class ArmUnavailableError extends RecallError<'E_ARM_UNAVAILABLE'> {
  constructor(
    readonly arm: string,
    message: string,
  ) {
    super('E_ARM_UNAVAILABLE', message);
    this.name = 'ArmUnavailableError';
  }
}

/**
 * What an error says, in one line and never empty: the first line of its message (of any thrown
 * value that has one: an error from another realm, a plain object), else its name, else the value
 * as text.
 */
export function errorMessage(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  const first = (text: string): string => text.split(/[\r\n]/)[0]!.trim();
  if (typeof message === 'string' && first(message)) return first(message);
  if (err instanceof Error) return err.name || 'Error';
  let text: string;
  try {
    text = first(String(err));
  } catch {
    text = ''; // An object without a way to be text (no prototype, a throwing toString).
  }
  return text || 'unknown error';
}
