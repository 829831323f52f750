/**
 * How the thin client reads a hook's stdin: the same rules as the in-process hook (hook-runtime's
 * readStdin), restated here with node built-ins only so the client loads nothing else.
 *
 * It stops at end of input, as soon as what arrived is one complete JSON value (a harness may keep
 * the pipe open after writing it), or after a quarter of the hook's time (2 s at most).
 */
import type { Env } from './protocol.js';

/** Largest stdin a hook reads (harness payloads are small; a runaway pipe must not exhaust memory). */
const MAX_STDIN_BYTES = 4 * 1024 * 1024;
const STDIN_WAIT_MS = 2000;
const STDIN_SHARE = 0.25;

/** Each hook's deadline setting and default, in seconds (as in pipeline/hooks.ts). */
const DEADLINES: Record<string, [string, number]> = {
  'session-start': ['REFLECT_RECALL_TIMEOUT', 20],
  'user-prompt-submit': ['REFLECT_RECALL_TIMEOUT', 20],
  'subagent-start': ['REFLECT_SUBAGENT_RECALL_TIMEOUT', 5],
};

/**
 * The hook's deadline (epoch ms) from its environment setting; a malformed value means the default,
 * as in the hook itself. (A deadline set in recall.toml is honoured by the hook run, not here.)
 */
export function hookDeadline(name: string, env: Env, startedMs: number): number {
  const [key, def] = DEADLINES[name] ?? ['REFLECT_RECALL_TIMEOUT', 20];
  const raw = (env[key] ?? '').trim();
  const n = Number(raw);
  const sec = raw !== '' && Number.isFinite(n) && n >= 0.05 && n <= 3600 ? n : def;
  return startedMs + sec * 1000;
}

function lastNonSpace(b: Buffer): number {
  for (let i = b.length - 1; i >= 0; i -= 1) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

/** The hook's stdin ('' for a terminal, a closed or an oversized stdin). */
export function readHookStdin(stream: NodeJS.ReadStream, deadlineMs: number): Promise<string> {
  if (stream.isTTY) return Promise.resolve('');
  const waitMs = Math.min(STDIN_WAIT_MS, Math.max(0, (deadlineMs - Date.now()) * STDIN_SHARE));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const text = (): string => (size > MAX_STDIN_BYTES ? '' : Buffer.concat(chunks).toString('utf8'));
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
    const timer = setTimeout(() => finish(text()), waitMs);
    timer.unref();
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_STDIN_BYTES) return finish('');
      chunks.push(c);
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
