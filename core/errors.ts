/**
 * Typed errors with stable codes. The CLI maps them to exit codes in one place.
 */

export class RecallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RecallError';
  }
}

/** Bad command-line input: exit 2 with a one-line message. */
export class UsageError extends RecallError {
  constructor(message: string) {
    super('E_USAGE', message);
    this.name = 'UsageError';
  }
}

/** A note, anchor or log that was asked for by name and does not exist: exit 1 with a one-line message. */
export class NotFoundError extends RecallError {
  constructor(message: string) {
    super('E_NOT_FOUND', message);
    this.name = 'NotFoundError';
  }
}

/** An arm that cannot run in this installation (no model, no engine): reported as "unavailable". */
export class ArmUnavailableError extends RecallError {
  constructor(
    readonly arm: string,
    message: string,
  ) {
    super('E_ARM_UNAVAILABLE', message);
    this.name = 'ArmUnavailableError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
