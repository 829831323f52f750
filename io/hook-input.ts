/**
 * A hook call (HookCall), how a hook reads its stdin and how long it may take: the thin client puts
 * the call together (client/hook-call.ts) and the recall server and the in-process hook runtime take
 * it as it is. It imports nothing of the project, so the thin client bundles it without loading the
 * pipeline. Each hook's deadline setting and its default live in the hook table (hooks/hook-table.ts).
 */
import fs from 'node:fs';

/** Largest stdin a hook reads (harness payloads are small; a runaway pipe must not exhaust memory). */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;

/** Longest a hook waits for its stdin JSON, and its share of the deadline at most. */
export const STDIN_WAIT_MS = 2000;
export const STDIN_SHARE = 0.25;

/** The range a deadline setting may take, in seconds; a value outside it means the default. */
export const DEADLINE_MIN_SEC = 0.05;
export const DEADLINE_MAX_SEC = 3600;

/**
 * One hook call as its process received it. Built once, where the process starts (the thin client,
 * client/hook-call.ts), and handed whole to the recall server or to the in-process path: both answer
 * it with answerHook (hooks/answer.ts), so neither reads the settings or works out the deadline again.
 */
export interface HookCall {
  /** The hook's name in the hook table (hooks/hook-table.ts). */
  name: string;
  /** What the harness sent on stdin ('' when nothing came). */
  stdinText: string;
  /** The caller's environment with recall.toml's settings under it, relative path settings made absolute against `cwd`. */
  env: Readonly<Record<string, string | undefined>>;
  /** Problems met reading those settings (a broken recall.toml, a malformed deadline): breadcrumbs of the hook. */
  warnings: readonly string[];
  /** The caller's working directory. */
  cwd: string;
  /** When the hook process started (epoch ms): node's own start-up and the stdin read count against the deadline. */
  startedMs: number;
  /** When the answer is due (epoch ms): `startedMs` plus the hook's deadline setting. */
  deadlineMs: number;
}

/**
 * Before the deadline, the client prints the empty envelope itself, whatever the server or the
 * in-process run still does: time to write the answer and exit, so that it arrives inside the
 * deadline even on a loaded machine.
 */
export const GIVE_UP_BEFORE_MS = 100;
/**
 * A hook's run is cut this long before the deadline (runHook's safety net): nothing of it goes on,
 * nor records anything, once it is cut, and the answer still has GIVE_UP_BEFORE_MS less this to
 * travel from the server to the client. A run that recorded notes therefore answered before the
 * client gave up, unless the answer took longer than that to arrive.
 */
export const RUN_CUT_BEFORE_MS = 250;
/** The hook plans its work to end this long before the deadline (the deadline its recalls are given). */
export const RUN_PLAN_BEFORE_MS = 450;

/**
 * A hook's deadline (epoch ms) from its deadline setting: `defaultSec` when unset or blank; a value
 * that is not a number in DEADLINE_MIN_SEC..DEADLINE_MAX_SEC also means the default, and `problem`
 * says so. The one reading of a deadline setting: the thin client's, carried on the HookCall.
 */
export function hookDeadline(
  setting: string,
  raw: string | undefined,
  defaultSec: number,
  startedMs: number,
): { deadlineMs: number; problem: string | null } {
  const text = (raw ?? '').trim();
  if (text === '') return { deadlineMs: startedMs + defaultSec * 1000, problem: null };
  const n = Number(text);
  if (Number.isFinite(n) && n >= DEADLINE_MIN_SEC && n <= DEADLINE_MAX_SEC) return { deadlineMs: startedMs + n * 1000, problem: null };
  return {
    deadlineMs: startedMs + defaultSec * 1000,
    problem: `${setting}=${JSON.stringify(raw)} is not a number in ${DEADLINE_MIN_SEC}..${DEADLINE_MAX_SEC}; using ${defaultSec}`,
  };
}

/**
 * Shortest wait for input still on its way through a pipe, even when a slow start left no time
 * before the deadline: the harness wrote it at spawn, and an answer made without it is empty. Small
 * next to every harness's limit (10 s and more against a 5 s deadline).
 */
export const STDIN_MIN_WAIT_MS = 200;

/** How long a hook may spend reading stdin from now on, given its deadline (epoch ms). */
export function stdinWaitMs(deadlineMs: number, now = Date.now()): number {
  return Math.min(STDIN_WAIT_MS, Math.max(STDIN_MIN_WAIT_MS, (deadlineMs - now) * STDIN_SHARE));
}

function lastNonSpace(b: Buffer): number {
  for (let i = b.length - 1; i >= 0; i -= 1) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

/**
 * A regular file's whole text read at once from `fd` ('' when over `max`); null when `fd` is not a
 * regular file. A file given as stdin holds all its input already: no wait can miss it, at any load.
 */
function readRegularFile(fd: number, max: number): string | null {
  try {
    if (!fs.fstatSync(fd).isFile()) return null;
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const buf = Buffer.alloc(64 * 1024);
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      size += n;
      if (size > max) return '';
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Read the hook's stdin (capped at `max` bytes): resolves at end of input, as soon as what arrived
 * is one complete JSON value (a harness may keep the pipe open after writing it), or when `waitMs`
 * passed (with what arrived: a partial payload parses to {} later). '' for a TTY or a closed stdin.
 *
 * The wait counts from when reading starts, not from process start: its timer is armed once the
 * event loop has polled the stream (setImmediate), and callers give at least STDIN_MIN_WAIT_MS
 * (stdinWaitMs). A timer armed at once with the deadline's share used up by a slow start (0 ms)
 * fired before the first read on a loaded machine, and the hook answered from "empty stdin" with
 * its input sitting in the pipe. A regular file is read at once, without waiting.
 */
export function readStdin(stream: NodeJS.ReadStream = process.stdin, max = MAX_STDIN_BYTES, waitMs = STDIN_WAIT_MS): Promise<string> {
  if (stream.isTTY) return Promise.resolve('');
  const fd = (stream as { fd?: unknown }).fd;
  const whole = typeof fd === 'number' ? readRegularFile(fd, max) : null;
  if (whole !== null) return Promise.resolve(whole);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const text = (): string => (size > max ? '' : Buffer.concat(chunks).toString('utf8'));
    const finish = (value: string): void => {
      if (settled) return;
      settled = true;
      clearImmediate(armed);
      if (timer) clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.pause();
      // Let go of the pipe: an open stdin must not keep the process alive after the answer.
      (stream as { unref?: () => void }).unref?.();
      resolve(value);
    };
    let timer: NodeJS.Timeout | undefined;
    // setImmediate runs after the loop's poll phase: the stream has been read from once by then.
    const armed = setImmediate(() => {
      timer = setTimeout(() => finish(text()), Math.max(0, waitMs));
      timer.unref();
    });
    armed.unref();
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) return finish('');
      chunks.push(c);
      // Cheap test first: a JSON object or array ends with } or ] (trailing whitespace aside).
      const last = lastNonSpace(c);
      if (last !== 0x7d && last !== 0x5d) return;
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        finish(text());
      } catch {
        /* not complete yet */
      }
    });
    stream.on('end', () => finish(text()));
    stream.on('error', () => finish(''));
  });
}
