/**
 * Errors of `recall models pull`: a stable code and a one-line message, with the innermost useful
 * cause of a network or disk failure.
 */
export type PullErrorCode = 'E_PULL_NETWORK' | 'E_PULL_HTTP' | 'E_PULL_SIZE' | 'E_PULL_IO';

export class PullError extends Error {
  constructor(
    readonly code: PullErrorCode,
    message: string,
  ) {
    super(oneLine(message));
    this.name = 'PullError';
  }
}

/**
 * The innermost useful message of a fetch error ('fetch failed' → 'getaddrinfo ENOTFOUND host').
 * Duck-typed: errors from another realm (undici inside a test VM) fail `instanceof Error`.
 */
export function describeCause(err: unknown): string {
  let e: unknown = err;
  let best = '';
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 5; depth += 1) {
    const { message, code, cause } = e as { message?: unknown; code?: unknown; cause?: unknown };
    const text = typeof message === 'string' && message ? message : typeof code === 'string' ? code : '';
    if (text && text !== 'fetch failed') best = text;
    e = cause;
  }
  return oneLine(best || String(err));
}

export async function io<T>(verb: string, target: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new PullError('E_PULL_IO', `cannot ${verb} ${target} (${describeCause(err)})`);
  }
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
