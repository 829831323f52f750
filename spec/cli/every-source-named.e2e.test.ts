/**
 * Every command that reads notes says which sources it read, the same way list, explain, trace and
 * stages do (issue 37, item 1): with no KB configured, one `recall: reading N sources: …` line on
 * stderr; for the MCP tools, whose stderr no agent sees, the same line in the answer itself. The
 * world: a git project with only Claude Code's memory folder and one note added with `recall add`.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { zeroConfigWorld, repo, type ZeroConfigWorld } from '../helpers/zero-config.js';

let w: ZeroConfigWorld;
let client: Client;
let redis = '';
const FRIDAY = 'can I merge this on Friday?';

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown>): Promise<string> =>
  ((await client.callTool({ name, arguments: args })) as ToolText).content.map((c) => c.text).join('');

beforeAll(async () => {
  w = zeroConfigWorld();
  expect(
    w.recall(['add', '--title', 'redis eviction', '--insight', 'redis maxmemory-policy must be allkeys-lru for the cache cluster']).code,
  ).toBe(0);
  redis = (JSON.parse(w.recall(['list', '--json']).stdout) as { id: string }[]).find((r) => r.id.startsWith('lrn-redis'))!.id;
  client = new Client({ name: 'recall-spec', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(repo, 'scripts', 'launch.mjs'), 'recall', 'mcp'],
      env: w.baseEnv() as Record<string, string>,
      cwd: w.project,
      stderr: 'pipe',
    }),
  );
}, 120_000);

afterAll(async () => {
  await client?.close();
  w?.cleanup();
});

/** The `recall: reading 2 sources: <reflect KB> (…); <memory> (…)` line list prints. */
function expectBothSources(text: string): void {
  expect(text).toContain(`recall: reading 2 sources: ${w.home}/.learnings (`);
  expect(text).toContain(`${w.memory} (Claude Code memory of ${w.project}; read-only)`);
}

describe('every note-reading command names the sources it read', () => {
  it('list names them (the reference)', () => {
    expectBothSources(w.recall(['list']).stderr);
  }, 60_000);

  it('show names them, for a memory and for a note of the reflect KB', () => {
    const mem = w.recall(['show', 'merge-freeze']);
    expect(mem.code).toBe(0);
    expectBothSources(mem.stderr);
    const own = w.recall(['show', redis, '--json']);
    expect(own.code).toBe(0);
    expect((JSON.parse(own.stdout) as { id: string }).id).toBe(redis);
    expectBothSources(own.stderr);
  }, 60_000);

  it('replay reads the sources a hook here reads, and names them', () => {
    expect(w.promptHook(FRIDAY, 'named-1')).toContain('**[merge-freeze]**');
    const r = w.recall(['replay']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/replayed [1-9]\d* recalls .*: 0 would change/);
    expectBothSources(r.stderr);
    const j = w.recall(['replay', '--json']);
    expectBothSources(j.stderr);
    expect((JSON.parse(j.stdout) as { changed: number }).changed).toBe(0);
  }, 60_000);

  it('the MCP search, index, timeline, hydrate and explain answers name them', async () => {
    const search = await call('search', { query: FRIDAY });
    expect(search).toContain('[merge-freeze]');
    expectBothSources(search);
    const idx = JSON.parse(await call('index', { query: 'merge friday release' })) as { sources?: string; results: { id: string }[] };
    expect(idx.results.map((r) => r.id)).toContain('merge-freeze');
    expectBothSources(String(idx.sources));
    const tl = JSON.parse(await call('timeline', { anchor: 'merge-freeze' })) as { sources?: string; anchor: string };
    expect(tl.anchor).toBe('merge-freeze');
    expectBothSources(String(tl.sources));
    const h = JSON.parse(await call('hydrate', { ids: ['merge-freeze', redis] })) as { sources?: string; results: { found: boolean }[] };
    expect(h.results.map((r) => r.found)).toEqual([true, true]);
    expectBothSources(String(h.sources));
    const ex = await call('explain', { query: FRIDAY, id: 'merge-freeze' });
    expect(ex).toMatch(/included/);
    expectBothSources(ex);
  }, 120_000);

  it('a KB the user chose is not announced (nothing to say they did not choose)', async () => {
    const kb = path.join(w.home, '.learnings');
    expect(fs.existsSync(kb)).toBe(true);
    expect(w.recall(['show', redis, '--kb', kb]).stderr).not.toContain('recall: reading');
    expect(w.recall(['list', '--kb', kb]).stderr).not.toContain('recall: reading');
  }, 60_000);
});
