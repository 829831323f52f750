/**
 * A KB whose documents/ is a link into Claude Code's memory folder: `recall add` and the MCP `save`
 * tool refuse to write there (the resolved write path is checked, not the configured one), and the
 * memory folder is left exactly as it was.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repo, zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';

let w: ZeroConfigWorld;
let before: string[];
const listing = (dir: string): string[] => fs.readdirSync(dir).sort();

beforeAll(() => {
  w = zeroConfigWorld();
  // The pooled KB (where add and save write with nothing configured): its notes folder is the memory folder.
  fs.mkdirSync(path.join(w.home, '.learnings'), { recursive: true });
  fs.symlinkSync(w.memory, path.join(w.home, '.learnings', 'documents'));
  before = listing(w.memory);
});

afterAll(() => w?.cleanup());

describe('a KB whose documents/ links into a harness memory folder', () => {
  it('recall add refuses, naming the folder, and writes nothing there', () => {
    const out = w.recall(['add', '--title', 'Run the setup script first', '--insight', 'Always run the setup script before the tests.']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("in a harness's own memory folder, which recall reads but never changes");
    expect(listing(w.memory)).toEqual(before);
  });

  it('recall add --kb naming that KB refuses too', () => {
    const out = w.recall(['add', '--kb', path.join(w.home, '.learnings'), '--title', 'Run the setup script', '--insight', 'Run it first.']);
    expect(out.code).toBe(2);
    expect(listing(w.memory)).toEqual(before);
  });

  it('the MCP save tool refuses, and writes nothing there', async () => {
    const client = new Client({ name: 'recall-spec', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(repo, 'scripts', 'launch.mjs'), 'recall', 'mcp'],
        env: w.baseEnv({ CLAUDECODE: '1', CLAUDE_PROJECT_DIR: w.project, CLAUDE_CODE_SESSION_ID: 'sess-link' }) as Record<string, string>,
        cwd: w.project,
        stderr: 'pipe',
      }),
    );
    try {
      const r = (await client.callTool({
        name: 'save',
        arguments: { title: 'Run the setup script first', insight: 'Always run the setup script before running the tests.' },
      })) as { content: { text: string }[]; isError?: boolean };
      expect(r.isError).toBe(true);
      expect(r.content.map((c) => c.text).join('')).toContain('memory folder');
      expect(listing(w.memory)).toEqual(before);
    } finally {
      await client.close();
    }
  }, 60_000);
});
