/**
 * With nothing configured, a recall reads the reflect KB and the project's Claude Code memory
 * together: every id the prompt hook shows, whichever source it came from, opens with `show`,
 * `stages hydrate`, `explain --id` and MCP hydrate; a memory file whose `name` has spaces gets one
 * readable id, the same in the injected block, the recall log and every command.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repo, zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';
import { declaredKey } from '../../core/note/index.js';

// The name had to be slugged: its readable form and a hash of it and of the file's place.
const POOL_ID = declaredKey('Pool size per worker', 'feedback_pool');

let w: ZeroConfigWorld;
let client: Client;

beforeAll(async () => {
  w = zeroConfigWorld();
  // A reflect KB as well (read first), so a memory note's id is not in the first source read.
  fs.cpSync(path.join(repo, 'examples', 'kb'), path.join(w.home, '.learnings'), { recursive: true });
  fs.writeFileSync(
    path.join(w.memory, 'feedback_pool.md'),
    [
      '---',
      'name: Pool size per worker',
      'description: size the postgres connection pool per gunicorn worker, under max_connections in total.',
      'type: feedback',
      '---',
      'Each gunicorn worker opens its own pool; pool_size times the worker count must stay under max_connections.',
      '',
    ].join('\n'),
  );
  client = new Client({ name: 'recall-spec', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(repo, 'scripts', 'launch.mjs'), 'recall', 'mcp'],
      env: w.baseEnv({ CLAUDE_PROJECT_DIR: w.project }) as Record<string, string>,
      cwd: w.project,
      stderr: 'pipe',
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close();
  w?.cleanup();
});

const shownIds = (block: string): string[] => [...block.matchAll(/^- \*\*\[(.+?)\]\*\*/gm)].map((m) => m[1]!);

describe('ids of harness memory notes, zero-config', () => {
  it('a memory name with spaces is one readable id, in the injected block and in the recall log', () => {
    const ids = shownIds(w.promptHook('how large should the postgres connection pool be per gunicorn worker', 'mem-ids-1'));
    expect(POOL_ID).toMatch(/^Pool-size-per-worker-[0-9a-f]{6}$/);
    expect(ids).toContain(POOL_ID);
    const log = fs.readFileSync(path.join(w.home, '.reflect', 'recall_log.jsonl'), 'utf8');
    expect(log).toContain(`"${POOL_ID}"`);
    expect(log).not.toContain('Pool size per worker');
  });

  it('every id shown, from the memory folder or the reflect KB, opens with show, stages hydrate, explain --id and MCP hydrate', async () => {
    const ids = [
      ...shownIds(w.promptHook('how large should the postgres connection pool be per gunicorn worker', 'mem-ids-2')),
      ...shownIds(w.promptHook('can I merge my pull request to main on Friday before the release?', 'mem-ids-3')),
    ];
    expect(ids).toEqual(expect.arrayContaining([POOL_ID, 'merge-freeze']));
    expect(ids.some((id) => id.startsWith('lrn-'))).toBe(true);
    for (const id of new Set(ids)) {
      const show = w.recall(['show', id]);
      // Nothing on stderr but the line naming the sources read (every note command prints it here).
      const warnings = show.stderr.split('\n').filter((l) => l && !l.startsWith('recall: reading 2 sources: '));
      expect({ id, code: show.code, warnings }).toEqual({ id, code: 0, warnings: [] });
      expect(show.stdout).toContain(`[${id}]`);
      const hydrate = w.recall(['stages', 'hydrate', id]);
      expect((JSON.parse(hydrate.stdout) as { results: { found: boolean }[] }).results).toEqual([expect.objectContaining({ found: true })]);
      const explain = w.recall(['explain', 'postgres pool per worker', '--id', id]);
      expect(explain.stdout + explain.stderr).not.toContain('no note with this id');
      expect(explain.code).toBe(0);
      const mcp = (await client.callTool({ name: 'hydrate', arguments: { ids: [id] } })) as { content: { text: string }[] };
      expect(mcp.content.map((c) => c.text).join('')).toContain('"found": true');
    }
    // The name as the memory file declares it opens the note too.
    expect(w.recall(['show', 'Pool size per worker']).stdout).toContain(`[${POOL_ID}]`);
  }, 120_000);
});
