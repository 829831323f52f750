/**
 * How a hook reads its stdin and how long it may take: shared by the in-process hook runtime and
 * the recall server's thin client. It imports nothing of the project, so the thin client can bundle
 * it without loading the pipeline, and both read a hook's input and deadline exactly alike. Each
 * hook's deadline setting and its default live in the hook table (hooks/hook-table.ts).
 */

/** Largest stdin a hook reads (harness payloads are small; a runaway pipe must not exhaust memory). */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;

/** Longest a hook waits for its stdin JSON, and its share of the deadline at most. */
export const STDIN_WAIT_MS = 2000;
export const STDIN_SHARE = 0.25;

/** The range a deadline setting may take, in seconds; a value outside it means the default. */
export const DEADLINE_MIN_SEC = 0.05;
export const DEADLINE_MAX_SEC = 3600;

/**
 * A deadline setting's value in seconds: `defaultSec` when unset, blank, not a number or outside
 * the allowed range (the hook runtime reads it the same way and also records the bad value).
 */
export function deadlineSec(raw: string | undefined, defaultSec: number): number {
  const text = (raw ?? '').trim();
  const n = Number(text);
  return text !== '' && Number.isFinite(n) && n >= DEADLINE_MIN_SEC && n <= DEADLINE_MAX_SEC ? n : defaultSec;
}

/** How long a hook may spend reading stdin, given its deadline (epoch ms). */
export function stdinWaitMs(deadlineMs: number, now = Date.now()): number {
  return Math.min(STDIN_WAIT_MS, Math.max(0, (deadlineMs - now) * STDIN_SHARE));
}

function lastNonSpace(b: Buffer): number {
  for (let i = b.length - 1; i >= 0; i -= 1) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

/**
 * Read the hook's stdin (capped at `max` bytes): resolves at end of input, as soon as what arrived
 * is one complete JSON value (a harness may keep the pipe open after writing it), or when `waitMs`
 * passed (with what arrived: a partial payload parses to {} later). '' for a TTY or a closed stdin.
 */
export function readStdin(stream: NodeJS.ReadStream = process.stdin, max = MAX_STDIN_BYTES, waitMs = STDIN_WAIT_MS): Promise<string> {
  if (stream.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const text = (): string => (size > max ? '' : Buffer.concat(chunks).toString('utf8'));
    const finish = (value: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.pause();
      // Let go of the pipe: an open stdin must not keep the process alive after the answer.
      (stream as { unref?: () => void }).unref?.();
      resolve(value);
    };
    const timer = setTimeout(() => finish(text()), Math.max(0, waitMs));
    timer.unref();
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
