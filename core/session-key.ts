/**
 * The name recall gives a harness session in its own files and logs: `s-` and 16 hex digits of a
 * SHA-256 of the session id. The id is the harness's (or whatever a client sends as `session_id`,
 * a token included), so it never names a file under the state dir nor reaches a log as it came;
 * the same id always gives the same name, so every hook of one session finds the session's state.
 */
import { createHash } from 'node:crypto';

export function sessionKey(sessionId: string): string {
  return `s-${createHash('sha256').update(`recall session\0${sessionId}`).digest('hex').slice(0, 16)}`;
}
