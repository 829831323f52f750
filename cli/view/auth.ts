/**
 * Who may use `recall view`: the person who started it, and nobody else on the machine.
 *
 * - The run's token (printed on stdout, never in any process's argv) and one-time codes are the
 *   only ways in. Either one, in `?t=` or `?code=`, is traded for a session cookie (HttpOnly,
 *   SameSite=Strict, named for the port) and the browser is sent on to the same page without it,
 *   so no secret stays in the address bar or history.
 * - The browser opener gets a one-time code, not the token: its command line (`xdg-open URL`) is
 *   readable by every local user in /proc/PID/cmdline while it runs. A code grants one session and
 *   then nothing; used twice, the second use is refused and says that someone else may have used it.
 * - A form that changes a note carries the session's CSRF token, and the POST must come from this
 *   origin (Origin header): a page another local user serves on 127.0.0.1 is same-site, so
 *   SameSite alone would let it post with the person's cookie.
 *
 * Secrets are compared in constant time (hashing first makes the lengths equal).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Constant-time comparison of a secret given with the expected one. */
export function secretMatches(given: string | null | undefined, expected: string): boolean {
  return typeof given === 'string' && given.length > 0 && timingSafeEqual(digest(given), digest(expected));
}

/** How long a one-time code may wait for the browser: a cold browser start on a loaded machine takes seconds, not minutes. */
const CODE_TTL_MS = 10 * 60_000;

/** The most sessions one run keeps (each browser profile, or a cleared cookie, makes one): a bound, not a limit anyone meets. */
const MAX_SESSIONS = 256;

export type Redeemed = { session: string } | { refused: string };

export interface ViewAuth {
  /** The run's token: printed on stdout for the person; good for any number of sessions. */
  readonly token: string;
  /** The cookie's name (cookies are not kept apart by port, so two views on two ports need two names). */
  readonly cookieName: string;
  /** A code good for one session, for the browser opener's command line. */
  issueCode(): string;
  /** Trades a token (`t`) or a one-time code (`code`) for a new session, or says why not. */
  redeem(kind: 't' | 'code', value: string): Redeemed;
  /** The session a request's Cookie header names, if it is one of this run's. */
  sessionOf(cookieHeader: string | undefined): string | null;
  /** The CSRF token of a session (what its forms carry). */
  csrfOf(session: string): string;
  /** The Set-Cookie header value for a session. */
  cookie(session: string): string;
}

export function createViewAuth(port: number, token = randomBytes(24).toString('base64url')): ViewAuth {
  const key = randomBytes(32);
  const codes = new Map<string, { expires: number; used: boolean }>();
  const sessions = new Set<string>();
  const cookieName = `recall_view_${port}`;
  const newSession = (): string => {
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.values().next().value!);
    const s = randomBytes(32).toString('base64url');
    sessions.add(s);
    return s;
  };
  return {
    token,
    cookieName,
    issueCode() {
      const code = randomBytes(24).toString('base64url');
      codes.set(digest(code).toString('hex'), { expires: Date.now() + CODE_TTL_MS, used: false });
      return code;
    },
    redeem(kind, value) {
      if (kind === 't')
        return secretMatches(value, token)
          ? { session: newSession() }
          : { refused: 'forbidden: this page needs the URL printed by `recall view`' };
      // A map keyed by the code's hash: the lookup does not compare the secret byte by byte.
      const c = codes.get(digest(value).toString('hex'));
      if (!c) return { refused: 'forbidden: not a code of this `recall view`' };
      if (c.used)
        return {
          refused:
            'forbidden: this one-time link was already used. If that was not you, another local user may have read it: stop `recall view` (Ctrl-C) and start it again, then open the URL it prints.',
        };
      if (Date.now() > c.expires) return { refused: 'forbidden: this one-time link expired; open the URL `recall view` printed' };
      c.used = true;
      return { session: newSession() };
    },
    sessionOf(header) {
      for (const part of (header ?? '').split(';')) {
        const eq = part.indexOf('=');
        if (eq < 0 || part.slice(0, eq).trim() !== cookieName) continue;
        const value = part.slice(eq + 1).trim();
        // Set membership of a 256-bit random value: nothing to learn from timing.
        if (sessions.has(value)) return value;
      }
      return null;
    },
    csrfOf(session) {
      return createHmac('sha256', key).update(session).digest('base64url');
    },
    cookie(session) {
      return `${cookieName}=${session}; Path=/; HttpOnly; SameSite=Strict`;
    },
  };
}
