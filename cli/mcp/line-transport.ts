/**
 * MCP's stdio framing for `recall mcp` (one JSON-RPC message per line), with every framing failure
 * answered instead of fatal. Used instead of the SDK's StdioServerTransport, which drops the
 * connection for good on a line over 10 MiB, answers nothing to a line that is not JSON, and never
 * notices stdin closing.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { wellFormedJson } from '../../sinks/safe-text.js';

/**
 * Longest request line read (10 MiB, the SDK's own bound): a line past it is skipped as it streams
 * in, never held in memory, and answered with an error, so one huge request cannot exhaust memory
 * or end the session.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** Bytes kept from each end of a skipped line, enough to find its `id` in either place. */
const ID_PEEK_BYTES = 4096;
/**
 * After stdin closes, how long requests already read may take to be answered before the server
 * stops anyway (a tool stuck past every one of its own deadlines must not keep the process alive).
 */
const END_GRACE_MS = 30_000;

/** JSON-RPC 2.0 error codes used by the framing layer. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

type RequestId = string | number;

export interface LineTransportOptions {
  maxLineBytes?: number;
  /** One line on stderr for each framing problem. */
  warn: (line: string) => void;
}

/**
 * MCP's stdio framing (one JSON-RPC message per line, UTF-8) with the failures answered, not fatal:
 * - a line that is not JSON gets `-32700 Parse error` with `id: null`, as JSON-RPC 2.0 says;
 * - JSON that is not a JSON-RPC message gets `-32600 Invalid Request` (with its id when it has one);
 * - a line over `maxLineBytes` is skipped unread and gets `-32600` naming the limit, with the
 *   request's id when it stands first or last in the object (where clients put it), else `null`;
 * - blank lines are ignored, and a last line without its newline is still read at end of input;
 * - when stdin ends, the requests already read are answered, then the transport closes;
 * - a stdout that fails (the client went away) closes the transport;
 * - what is sent is well-formed JSON without invisible characters (see sinks/safe-text.ts).
 * Every later request is served as usual after any of these.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private readonly max: number;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while the rest of an over-long line is being skipped. */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | null = null;
  /** Ids of requests read and not yet answered. */
  private readonly pending = new Set<RequestId>();
  private ended = false;
  private closed = false;
  private graceTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly opts: LineTransportOptions,
  ) {
    this.max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (buf.length > 0 && !this.closed) {
      const nl = buf.indexOf(0x0a);
      const part = nl === -1 ? buf : buf.subarray(0, nl);
      this.take(part);
      if (nl === -1) return;
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  };

  private readonly onEnd = (): void => {
    if (this.skipping || this.size > 0) this.endLine();
    this.ended = true;
    this.closeWhenAnswered();
  };

  private readonly onInputError = (err: Error): void => {
    this.onerror?.(err);
    void this.close();
  };

  private readonly onOutputError = (err: Error): void => {
    this.onerror?.(err);
    void this.close();
  };

  /** Part of the current line: kept, or (past the limit) counted and skipped. */
  private take(part: Buffer): void {
    if (this.skipping) {
      this.skipping.bytes += part.length;
      this.skipping.tail = lastBytes(Buffer.concat([this.skipping.tail, part]), ID_PEEK_BYTES);
      return;
    }
    if (this.size + part.length <= this.max) {
      this.chunks.push(Buffer.from(part));
      this.size += part.length;
      return;
    }
    const sofar = Buffer.concat([...this.chunks, part]);
    this.skipping = { bytes: sofar.length, head: Buffer.from(sofar.subarray(0, ID_PEEK_BYTES)), tail: lastBytes(sofar, ID_PEEK_BYTES) };
    this.chunks = [];
    this.size = 0;
  }

  private endLine(): void {
    const skipped = this.skipping;
    const line = skipped ? null : Buffer.concat(this.chunks);
    this.skipping = null;
    this.chunks = [];
    this.size = 0;
    if (skipped) this.answerOversized(skipped);
    // A byte-order mark some writers put before their first line is no part of the JSON.
    else
      this.handleLine(
        line!
          .toString('utf8')
          .replace(/^\ufeff/, '')
          .replace(/\r$/, ''),
      );
  }

  private answerOversized(s: { bytes: number; head: Buffer; tail: Buffer }): void {
    const id = peekId(s.head.toString('utf8'), s.tail.toString('utf8'));
    const message = `Request too large: a line of ${s.bytes} bytes is over the ${this.max}-byte limit; it was not read`;
    this.opts.warn(`recall mcp: ${message}${id === null ? '' : ` (request id ${JSON.stringify(id)})`}`);
    this.sendError(id, INVALID_REQUEST, message);
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      this.opts.warn(`recall mcp: a line that is not JSON (${line.length} characters): ${detail}`);
      this.sendError(null, PARSE_ERROR, `Parse error: ${detail}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = idOf(value);
      this.opts.warn(`recall mcp: a JSON line that is not a JSON-RPC 2.0 message${id === null ? '' : ` (id ${JSON.stringify(id)})`}`);
      this.sendError(id, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message && message.id !== undefined) this.pending.add(message.id);
    this.onmessage?.(message);
  }

  private sendError(id: RequestId | null, code: number, message: string): void {
    // Written directly: the SDK's message type has no `id: null`, which JSON-RPC requires here.
    this.write(`${wellFormedJson({ jsonrpc: '2.0', id, error: { code, message } })}\n`).catch(() => undefined);
  }

  private write(text: string): Promise<void> {
    if (this.closed || this.output.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  private closeWhenAnswered(): void {
    if (!this.ended || this.closed) return;
    if (this.pending.size === 0) {
      void this.close();
      return;
    }
    this.graceTimer ??= setTimeout(() => {
      this.opts.warn(`recall mcp: stdin closed; ${this.pending.size} request(s) still unanswered after ${END_GRACE_MS / 1000} s, stopping`);
      void this.close();
    }, END_GRACE_MS);
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  /**
   * Every string of every answer is made well-formed and visible on the way out (wellFormedJson):
   * whatever a tool returns, no invisible character reaches the agent through MCP.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(`${wellFormedJson(message)}\n`);
    if (('result' in message || 'error' in message) && message.id !== undefined) {
      this.pending.delete(message.id);
      this.closeWhenAnswered();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
    this.input.pause();
    this.onclose?.();
  }
}

function lastBytes(b: Buffer, n: number): Buffer {
  return b.length <= n ? b : Buffer.from(b.subarray(b.length - n));
}

/** A JSON-RPC id: a string, or an integer (JSON-RPC discourages fractions). */
function asId(v: unknown): RequestId | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  return null;
}

function idOf(value: unknown): RequestId | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? asId((value as Record<string, unknown>)['id']) : null;
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `"id"` as the first member of the outermost object, or right after a leading `"jsonrpc"`. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + ID_VALUE + String.raw`\s*[,}]`);
/** `"id"` as the last member of the outermost object (the SDK's clients write it there). */
const ID_LAST = new RegExp(String.raw`[,{]\s*"id"\s*:\s*` + ID_VALUE + String.raw`\s*\}\s*$`);

/**
 * The id of a request too long to parse, found only where it is certainly a member of the
 * outermost object: first (`{"id":…` or `{"jsonrpc":"2.0","id":…`) or last (`…,"id":7}`).
 */
export function peekId(head: string, tail: string): RequestId | null {
  const m = ID_FIRST.exec(head) ?? ID_LAST.exec(tail.replace(/\r$/, ''));
  if (!m) return null;
  try {
    return asId(JSON.parse(m[1]!));
  } catch {
    return null;
  }
}
