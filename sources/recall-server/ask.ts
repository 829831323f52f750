/**
 * The client's side of the recall server's socket: ask the server one request. Used by the thin
 * client and by `recall daemon status|stop`; node built-ins and the protocol only (a hook the server
 * answers must load nothing else).
 */
import net from 'node:net';
import { ACCEPTED_LINE, GO_LINE, checkSocketDir, checkSocketOwner, type ServerAnswer, type ServerRequest } from './protocol.js';

/**
 * Why the server gave no answer. Before it accepted the request: 'absent' (no server), 'foreign'
 * (a socket or folder of another user, or no usable folder), 'timeout' (not accepted in time),
 * 'refused' (the connection failed otherwise). After it accepted: 'late' (no answer in time; the
 * server still runs the request, so the caller must not run it again) and 'dropped' (the server
 * closed the connection or died without a whole answer).
 */
export type Failure = 'absent' | 'foreign' | 'timeout' | 'refused' | 'late' | 'dropped';
export type Outcome = { answer: ServerAnswer } | { failed: Failure };

/** Only a socket of this user, in this user's private folder, ever sees a prompt or a note. */
function socketProblem(socket: string): Failure | null {
  try {
    checkSocketDir(socket);
    checkSocketOwner(socket);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'foreign';
  }
}

/**
 * Send one request; the server must accept it within `acceptWithinMs` and answer before `answerBy`
 * (epoch ms). When it has not accepted in time, `keepWaiting` (if given) decides: an epoch ms keeps
 * the connection and waits for acceptance until then (a busy server queues the call), and for the
 * answer until `answerBy`; null, or no `keepWaiting`, gives up with 'timeout'.
 */
export function ask(
  socket: string,
  req: ServerRequest,
  acceptWithinMs: number,
  answerBy: number,
  keepWaiting?: () => number | null,
): Promise<Outcome> {
  const problem = socketProblem(socket);
  if (problem) return Promise.resolve({ failed: problem });
  return new Promise((resolve) => {
    const conn = net.connect(socket);
    let buf = '';
    let accepted = false;
    let done = false;
    const finish = (o: Outcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(o);
    };
    const notAccepted = (): void => {
      const acceptBy = accepted ? null : (keepWaiting?.() ?? null);
      if (acceptBy === null) return finish({ failed: 'timeout' });
      timer = setTimeout(() => finish({ failed: 'timeout' }), Math.max(0, Math.min(acceptBy, answerBy) - Date.now()));
    };
    let timer = setTimeout(notAccepted, acceptWithinMs);
    const onLine = (line: string): void => {
      if (!accepted && line === ACCEPTED_LINE) {
        accepted = true;
        conn.write(`${GO_LINE}\n`);
        clearTimeout(timer);
        timer = setTimeout(() => finish({ failed: 'late' }), Math.max(0, answerBy - Date.now()));
      } else if (accepted) {
        try {
          finish({ answer: JSON.parse(line) as ServerAnswer });
        } catch {
          finish({ failed: 'dropped' });
        }
      }
    };
    conn.setEncoding('utf8');
    conn.once('connect', () => conn.write(`${JSON.stringify(req)}\n`));
    conn.on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0 && !done; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        onLine(line);
      }
    });
    // Every error is handled (`on`, not `once`): a second error event must never crash the hook.
    conn.on('error', (err: NodeJS.ErrnoException) =>
      finish({ failed: accepted ? 'dropped' : ['ENOENT', 'ECONNREFUSED'].includes(err.code ?? '') ? 'absent' : 'refused' }),
    );
    conn.on('close', () => finish({ failed: accepted ? 'dropped' : 'refused' }));
  });
}
