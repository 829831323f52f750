/**
 * `recall mcp` framing under bad input: an over-long request line, a line that is not JSON, JSON
 * that is not JSON-RPC, and stdin closing. Driven twice: through the MCP SDK's own client
 * (StdioClientTransport) and with raw lines written to the real process.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { PassThrough } from 'node:stream';
import { LineTransport, MAX_LINE_BYTES, peekId } from '../../cli/mcp/mcp.js';
import { driverEnv } from '../helpers/driver.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const kb = path.join(repo, 'examples', 'kb');
const argv = [path.join(repo, 'scripts', 'launch.mjs'), 'recall', 'mcp', '--kb', kb];
let state = '';
const env = (): Record<string, string> => ({ PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, ...driverEnv() });

beforeAll(() => {
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-mcp-framing-'));
});
afterAll(() => fs.rmSync(state, { recursive: true, force: true }));

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  answers: Record<string, unknown>[];
  stderr: string;
}

/**
 * Write `lines` (strings sent as they are, each followed by a newline) to a fresh `recall mcp`,
 * close stdin, and collect every answer line and the exit status.
 */
function rawSession(lines: (string | Buffer)[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        answers: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
        stderr: err,
      }),
    );
    child.stdin.on('error', () => undefined);
    for (const l of lines) {
      child.stdin.write(l);
      child.stdin.write('\n');
    }
    child.stdin.end();
  });
}

const byId = (answers: Record<string, unknown>[], id: unknown) => answers.find((a) => a['id'] === id);

describe('recall mcp framing, raw lines', () => {
  it('answers a line that is not JSON with -32700 and id null, and serves the requests around it', async () => {
    const r = await rawSession([
      JSON.stringify(INIT),
      'this is not json {',
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    ]);
    expect(r.code).toBe(0);
    const parse = r.answers.find((a) => (a['error'] as { code?: number } | undefined)?.code === -32700);
    expect(parse).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect((byId(r.answers, 1)!['result'] as { serverInfo: { name: string } }).serverInfo.name).toBe('recall');
    expect(((byId(r.answers, 2)!['result'] as { tools: unknown[] }).tools ?? []).length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/recall mcp: a line that is not JSON/);
  }, 60_000);

  it('answers JSON that is not a JSON-RPC message with -32600, keeping its id', async () => {
    const r = await rawSession([JSON.stringify(INIT), '{"id":"odd","hello":1}', '[1,2,3]', '']);
    expect(r.code).toBe(0);
    expect(byId(r.answers, 'odd')).toMatchObject({ error: { code: -32600 } });
    expect(r.answers.filter((a) => a['id'] === null && (a['error'] as { code: number }).code === -32600)).toHaveLength(1);
    // The blank line is no message and gets no answer: initialize, the two errors, nothing else.
    expect(r.answers).toHaveLength(3);
  }, 60_000);

  it('skips a line over the limit with an error naming its id, and serves the request after it', async () => {
    // The SDK's clients put "id" last; a raw client may put it first. Both are found.
    const huge = 'x'.repeat(MAX_LINE_BYTES + 1024);
    const r = await rawSession([
      JSON.stringify(INIT),
      JSON.stringify({ method: 'tools/call', params: { name: 'search', arguments: { query: huge } }, jsonrpc: '2.0', id: 7 }),
      JSON.stringify({ jsonrpc: '2.0', id: 'first', method: 'tools/call', params: { name: 'search', arguments: { query: huge } } }),
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    ]);
    expect(r.code).toBe(0);
    for (const id of [7, 'first']) {
      const a = byId(r.answers, id) as { error: { code: number; message: string } };
      expect(a.error.code).toBe(-32600);
      expect(a.error.message).toMatch(/over the 10485760-byte limit/);
    }
    expect(((byId(r.answers, 8)!['result'] as { tools: unknown[] }).tools ?? []).length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/Request too large.*\(request id 7\)/);
  }, 120_000);

  it('exits 0 when stdin closes, at once or after answering what it read', async () => {
    const empty = await rawSession([]);
    expect({ code: empty.code, signal: empty.signal, answers: empty.answers }).toEqual({ code: 0, signal: null, answers: [] });
    // A request written just before the close is still answered before the exit.
    const r = await rawSession([
      JSON.stringify(INIT),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: 'postgres pool' } } }),
    ]);
    expect(r.code).toBe(0);
    expect(byId(r.answers, 3)).toHaveProperty('result');
  }, 60_000);
});

describe('recall mcp framing, through the SDK client', () => {
  let client: Client;
  let transport: StdioClientTransport;
  beforeAll(async () => {
    client = new Client({ name: 'recall-framing-spec', version: '1.0.0' });
    transport = new StdioClientTransport({ command: process.execPath, args: argv, env: env(), stderr: 'pipe' });
    await client.connect(transport);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('rejects an over-long call with a JSON-RPC error and keeps serving the session', async () => {
    const huge = 'pool '.repeat(Math.ceil(MAX_LINE_BYTES / 5) + 100);
    const err = await client.callTool({ name: 'search', arguments: { query: huge } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32600);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search');
    const after = (await client.callTool({ name: 'search', arguments: { query: 'postgres connection pool exhausted in pytest' } })) as {
      content: { text: string }[];
    };
    expect(after.content.map((c) => c.text).join('')).toContain('lrn-pytest-pg-pool-fixture-c04e7a');
  }, 120_000);

  it('ends with status 0 when the client closes', async () => {
    const c2 = new Client({ name: 'closer', version: '1.0.0' });
    const t2 = new StdioClientTransport({ command: process.execPath, args: argv, env: env(), stderr: 'pipe' });
    await c2.connect(t2);
    // The SDK keeps the child private; its exit status is what this spec is about.
    const child = (t2 as unknown as { _process?: import('node:child_process').ChildProcess })._process;
    expect(child?.pid).toBe(t2.pid);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    // Closing the client's end of stdin is what a harness does at the end of a session.
    child!.stdin!.end();
    expect(await exited).toBe(0);
    await c2.close();
  }, 60_000);
});

describe('peekId', () => {
  it('finds the id only where it is a member of the outermost object', () => {
    expect(peekId('{"jsonrpc":"2.0","id":5,"method":"x","params":{"q":"', '')).toBe(5);
    expect(peekId('{"id":"a\\"b","method":', '')).toBe('a"b');
    expect(peekId('{"method":"x","params":{"q":"', 'aaaa"}},"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(peekId('{"method":"x","params":{"q":"', 'aaaa","id":42}}')).toBeNull(); // nested: not the request's
    expect(peekId('{"method":"x","params":{"id":3,"q":"', 'zzz"}}')).toBeNull();
    expect(peekId('{"id":1.5,"method":', '')).toBeNull();
  });
});

describe('LineTransport', () => {
  /** Feed `chunks` to a transport, end the input, and return what it read and what it wrote. */
  async function feed(chunks: Buffer[], maxLineBytes?: number) {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (d: Buffer) => (written += d.toString('utf8')));
    const warnings: string[] = [];
    const t = new LineTransport(input, output, { warn: (l) => warnings.push(l), ...(maxLineBytes ? { maxLineBytes } : {}) });
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    for (const c of chunks) input.write(c);
    input.end();
    await closed;
    return {
      got,
      written: written
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
      warnings,
    };
  }

  it('reads a message split into one-byte chunks, multi-byte characters cut in half included', async () => {
    const msg = { jsonrpc: '2.0', method: 'notifications/x', params: { q: 'café 東京 👩\u200d💻' } };
    const bytes = Buffer.from(`${JSON.stringify(msg)}\r\n`, 'utf8');
    const r = await feed([...bytes].map((b) => Buffer.from([b])));
    expect(r.got).toEqual([msg]);
  });

  it('skips an over-long line arriving in pieces, then reads the next message of the same chunk', async () => {
    const big = `{"jsonrpc":"2.0","method":"tools/call","params":{"q":"${'y'.repeat(5000)}"},"id":"big"}`;
    const next = { jsonrpc: '2.0', method: 'notifications/next' };
    const r = await feed(
      [Buffer.from(big.slice(0, 1000)), Buffer.from(big.slice(1000, 3000)), Buffer.from(`${big.slice(3000)}\n${JSON.stringify(next)}\n`)],
      2048,
    );
    expect(r.got).toEqual([next]);
    expect(r.written).toEqual([
      {
        jsonrpc: '2.0',
        id: 'big',
        error: { code: -32600, message: expect.stringMatching(/line of 5\d{3} bytes is over the 2048-byte limit/) },
      },
    ]);
    expect(r.warnings).toHaveLength(1);
  });

  it('reads a last line that has no newline when the input ends', async () => {
    const r = await feed([Buffer.from('{"jsonrpc":"2.0","method":"notifications/last"}')]);
    expect(r.got).toEqual([{ jsonrpc: '2.0', method: 'notifications/last' }]);
  });

  it('sends answers without invisible characters', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (d: Buffer) => (written += d.toString('utf8')));
    const t = new LineTransport(input, output, { warn: () => undefined });
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a\u200bb\u{e0041}c 👩\u200d💻' }] } });
    expect(JSON.parse(written)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'abc 👩\u200d💻' }] } });
    await t.close();
  });
});
