/**
 * Streaming one file of a model from the hub to disk, with one stall timer that covers both the
 * wait for the response and every gap between chunks.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describeCause, io, PullError } from './pull-errors.js';
import type { PullOptions } from './pull.js';

/** Minimum spacing of progress callbacks per file: smooth for a terminal, cheap for the caller. */
const PROGRESS_INTERVAL_MS = 100;
/** Files a model may lack (a 404 is fine). */
const OPTIONAL = new Set(['special_tokens_map.json']);

export interface FetchContext {
  endpoint: string;
  fetchImpl: typeof fetch;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  onProgress: PullOptions['onProgress'];
  now: () => number;
  offlineHint: string;
}

/** Content-Length when it describes the bytes we will read (not a compressed transfer). */
function declaredLength(res: Response): number | null {
  const encoding = res.headers.get('content-encoding');
  if (encoding && encoding.toLowerCase() !== 'identity') return null;
  const raw = res.headers.get('content-length');
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** Aborts the download when no response or no data came for `ms`; a slow disk does not count (disarmed while writing). */
class StallTimer {
  timedOut = false;
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.ms);
  }

  disarm(): void {
    clearTimeout(this.timer);
  }
}

/** The hub's response for one file: null for an optional file it does not have; a clear error otherwise. */
async function fetchResponse(ctx: FetchContext, url: string, name: string, stall: StallTimer): Promise<Response | null> {
  const signal = ctx.signal ? AbortSignal.any([stall.controller.signal, ctx.signal]) : stall.controller.signal;
  stall.arm();
  let res: Response;
  try {
    res = await ctx.fetchImpl(url, { signal, redirect: 'follow', headers: { 'accept-encoding': 'identity' } });
  } catch (err) {
    stall.disarm();
    if (ctx.signal?.aborted === true) throw ctx.signal?.reason;
    const cause = stall.timedOut ? `no response within ${ctx.timeoutMs} ms` : describeCause(err);
    throw new PullError('E_PULL_NETWORK', `cannot reach ${ctx.endpoint} (${cause}): ${ctx.offlineHint}`);
  }
  if (res.ok && res.body === null) {
    stall.disarm();
    throw new PullError('E_PULL_SIZE', `${name} is empty`);
  }
  if (!res.ok || res.body === null) {
    stall.disarm();
    await res.body?.cancel().catch(() => undefined);
    if (res.status === 404 && OPTIONAL.has(name)) return null;
    const status = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    const hint = res.status === 401 || res.status === 403 ? ' (gated or private repository?)' : '';
    throw new PullError('E_PULL_HTTP', `cannot download ${name} from ${url}: ${status}${hint}`);
  }
  return res;
}

/** The next chunk, or a clear error when the connection stalled or was lost. */
async function readChunk(
  ctx: FetchContext,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  stall: StallTimer,
  name: string,
  got: string,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  try {
    return await reader.read();
  } catch (err) {
    if (ctx.signal?.aborted === true) throw ctx.signal?.reason;
    if (stall.timedOut) throw new PullError('E_PULL_NETWORK', `download of ${name} stalled: no data for ${ctx.timeoutMs} ms (got ${got})`);
    throw new PullError('E_PULL_NETWORK', `connection lost while downloading ${name} after ${got} (${describeCause(err)})`);
  }
}

/** Write the response body to `dest`; returns the byte count. */
async function streamToFile(
  ctx: FetchContext,
  body: ReadableStream<Uint8Array>,
  total: number | null,
  name: string,
  dest: string,
  stall: StallTimer,
): Promise<number> {
  let received = 0;
  let lastProgress = -Infinity;
  await io('create', path.dirname(dest), () => fs.mkdir(path.dirname(dest), { recursive: true }));
  const file = await io('create', dest, () => fs.open(dest, 'w'));
  const reader = body.getReader();
  let complete = false;
  try {
    for (;;) {
      const chunk = await readChunk(ctx, reader, stall, name, `${received} of ${total ?? '?'} bytes`);
      if (chunk.done) {
        complete = true;
        break;
      }
      stall.disarm(); // a slow disk is not a stalled network
      await io('write', dest, () => file.write(chunk.value));
      received += chunk.value.byteLength;
      const t = ctx.now();
      if (ctx.onProgress && t - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = t;
        ctx.onProgress(name, received, total);
      }
      stall.arm();
    }
  } finally {
    stall.disarm();
    if (!complete) {
      stall.controller.abort(); // frees the connection after a failed write
      await reader.cancel().catch(() => undefined);
    }
    reader.releaseLock();
    await file.close().catch(() => undefined);
  }
  return received;
}

/**
 * Streams one file to `dest`. Returns the byte count, or null for an optional file the hub does not have.
 * One timer covers both the wait for the response and every gap between chunks.
 */
export async function downloadFile(ctx: FetchContext, url: string, name: string, dest: string): Promise<number | null> {
  const stall = new StallTimer(ctx.timeoutMs);
  const res = await fetchResponse(ctx, url, name, stall);
  if (res === null) return null;
  const total = declaredLength(res);
  const received = await streamToFile(ctx, res.body!, total, name, dest, stall);
  if (total !== null && received !== total) {
    throw new PullError('E_PULL_SIZE', `${name}: received ${received} bytes but the hub announced ${total}`);
  }
  if (received === 0) throw new PullError('E_PULL_SIZE', `${name} is empty`);
  ctx.onProgress?.(name, received, total);
  return received;
}
