/**
 * `recall mcp` driven by the MCP SDK's own client over stdio, on the example KB: the tools are
 * listed, each answers, budgets hold.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_BUDGETS } from '../../cli/mcp/mcp.js';
import { driverEnv } from '../helpers/driver.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const kb = path.join(repo, 'examples', 'kb');
let state = '';
let client: Client;

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown>): Promise<ToolText> =>
  (await client.callTool({ name, arguments: args })) as ToolText;
const text = (r: ToolText): string => r.content.map((c) => c.text).join('');

beforeAll(async () => {
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-mcp-'));
  client = new Client({ name: 'recall-spec', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(repo, 'scripts', 'launch.mjs'), 'recall', 'mcp', '--kb', kb],
    env: { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, ...driverEnv() },
    stderr: 'pipe',
  });
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
  fs.rmSync(state, { recursive: true, force: true });
});

describe('recall mcp', () => {
  it('lists its tools with input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['explain', 'forget', 'hydrate', 'index', 'save', 'search', 'supersede', 'timeline']);
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(search.description).toMatch(/abstention/);
  });

  it('search runs the full pipeline, and abstains on an unrelated query', async () => {
    const hit = text(await call('search', { query: 'postgres connection pool exhausted in pytest', limit: 3 }));
    expect(hit).toMatch(
      /^<recall-notes>\nReference material[^\n]*\n\n## Prior learnings relevant to `postgres connection pool exhausted in pytest` — [1-3] learnings/,
    );
    expect(hit.endsWith('</recall-notes>')).toBe(true);
    expect(hit).toContain('[lrn-pytest-pg-pool-fixture-c04e7a]');
    const none = await call('search', { query: 'zzqx vexillology quasar', confidence: 'HIGH' });
    expect(none.isError).toBeFalsy();
    expect(text(none)).toMatch(/recall abstained/);
  });

  it('search shows what the ranking found under the floor, marked as weak matches with their relevance', async () => {
    const weak = text(await call('search', { query: 'kafka consumer group rebalancing storms' }));
    expect(weak).toMatch(/_Weak matches \(relevance below 0\.50; probably not about this\):_\n- \[lrn-[^\]]+\] .* \(relevance 0\.\d\d\)/);
    expect(weak).not.toMatch(/recall abstained/);
  });

  it('index, timeline and hydrate are the staged workflow, in order', async () => {
    const idx = JSON.parse(text(await call('index', { query: 'postgres pool', limit: 5 }))) as { step: number; results: { id: string }[] };
    expect(idx.step).toBe(1);
    expect(idx.results.length).toBeGreaterThanOrEqual(2);
    const [a, b] = idx.results.map((r) => r.id);
    const tl = JSON.parse(text(await call('timeline', { anchor: a, depth_before: 1, depth_after: 1 }))) as {
      step: number;
      anchor: string;
      results: { anchor: boolean }[];
    };
    expect(tl).toMatchObject({ step: 2, anchor: a });
    expect(tl.results.filter((r) => r.anchor)).toHaveLength(1);
    const hy = JSON.parse(text(await call('hydrate', { ids: [a, b] }))) as {
      step: number;
      results: { id: string; found: boolean; body: string }[];
    };
    expect(hy.step).toBe(3);
    expect(hy.results.map((r) => [r.id, r.found])).toEqual([
      [a, true],
      [b, true],
    ]);
    expect(hy.results[0]!.body.length).toBeGreaterThan(100);
  });

  it('explain says where a note is in a result', async () => {
    const out = text(await call('explain', { query: 'postgres pool exhausted', id: 'lrn-pytest-pg-pool-fixture-c04e7a' }));
    expect(out).toContain('lrn-pytest-pg-pool-fixture-c04e7a');
    expect(out.length).toBeLessThanOrEqual(MCP_BUDGETS.explain * 4);
  });

  it('keeps every answer within its stated budget, and rejects bad arguments as tool errors', async () => {
    const idx = JSON.parse(text(await call('index', { query: 'postgres docker node cache timeout', limit: 50 }))) as {
      results: { id: string }[];
    };
    const ids = idx.results.slice(0, 5).map((r) => r.id);
    const hy = text(await call('hydrate', { ids }));
    expect(hy.length).toBeLessThanOrEqual(MCP_BUDGETS.hydrate * 4);
    expect(JSON.parse(hy).results).toHaveLength(5);
    const big = text(await call('search', { query: 'postgres docker node cache timeout webhook', limit: 20 }));
    expect(big.length).toBeLessThanOrEqual(MCP_BUDGETS.search * 4);
    const tooMany = await call('hydrate', { ids: ['a', 'b', 'c', 'd', 'e', 'f'] });
    expect(tooMany.isError).toBe(true);
  });
});
