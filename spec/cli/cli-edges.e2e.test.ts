/**
 * Command-line edges a new user met (issue 37, item 5), each driving the built bin/recall: a flag
 * without its value, bare `recall`, a mistyped command, `view` of a missing KB, the help's count of
 * MCP tools, a memory shown once, and no note listed twice with the floor off.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { bin, env, repo, run } from './defects-helpers.js';
import { zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';
import { MCP_TOOL_NAMES } from '../../cli/mcp/index.js';
import { commandLike } from '../../cli/command-words.js';

let w: ZeroConfigWorld | null = null;
afterEach(() => {
  w?.cleanup();
  w = null;
});

describe('command-line edges', () => {
  it('a value option given without its value is a usage error (status 2), never the default', () => {
    expect(run(['redis', '--kb'])).toMatchObject({ code: 2, stdout: '', stderr: 'recall: error: --kb needs a value\n' });
    expect(run(['redis', '--kb='])).toMatchObject({ code: 2, stdout: '' });
    expect(run(['redis', '--field'])).toMatchObject({ code: 2, stderr: 'recall: error: --field needs a value\n' });
    // The same for a sub-command's --kb.
    expect(run(['list', '--kb'])).toMatchObject({ code: 2, stdout: '' });
  });

  it('bare `recall` prints the short help, status 0', () => {
    const r = run([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^recall: prior learnings/);
    expect(r.stdout).toContain('recall QUERY');
    expect(r.stdout).toContain('recall help COMMAND');
  });

  it('a one-word query close to a command that finds no note suggests the command; a word that finds notes searches', () => {
    const typo = run(['stauts', '--kb', 'examples/kb']);
    expect(typo.code).toBe(2);
    // One line: not the abstention too (its "no note mentions" is what the error says).
    expect(typo.stderr).toBe(
      'recall: error: unknown command "stauts"; did you mean `recall status`? (no note matches "stauts"; `recall -- stauts` searches it)\n',
    );
    // `--` always searches, and a machine format always gets its answer.
    expect(run(['--kb', 'examples/kb', '--', 'stauts']).code).toBe(0);
    expect(run(['stauts', '--kb', 'examples/kb', '--json']).code).toBe(0);
    // "index" is a command; "indexes" (2 edits away) is a word the example KB holds: it searches.
    const word = run(['indexes', '--kb', 'examples/kb']);
    expect(word.code).toBe(0);
    expect(word.stdout).toContain('Prior learnings relevant to `indexes`');
    expect(commandLike('stauts')).toBe('status');
    expect(commandLike('lsit')).toBe('list');
    expect(commandLike('redis')).toBeNull();
    expect(commandLike('test')).toBeNull();
    expect(commandLike('status')).toBeNull();
  });

  it('`recall view --kb` of a missing folder is an error before anything is served', async () => {
    const child = spawn(bin, ['view', '--kb', '/nonexistent-kb-folder', '--no-open', '--port', '0'], { env: env(), cwd: repo });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A server that started prints its URL and never exits on its own: stop it and fail then.
    const code = await new Promise<number | string | null>((resolve) => {
      child.on('close', resolve);
      child.stdout.on('data', () => {
        if (/http:\/\//.test(stdout)) {
          child.kill('SIGTERM');
          resolve('served');
        }
      });
    });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('recall: error: --kb /nonexistent-kb-folder: no such directory\n');
  }, 60_000);

  it("`recall --help` names the MCP server's tools, as many as it registers", () => {
    const help = run(['--help']).stdout.replace(/\s+/g, ' ');
    expect(MCP_TOOL_NAMES.length).toBe(8);
    expect(help).toContain(`(${MCP_TOOL_NAMES.length} tools: ${MCP_TOOL_NAMES.join(', ')})`);
  });

  it('`recall show` on a memory prints its description and "How to apply" once each', () => {
    w = zeroConfigWorld();
    const r = w.recall(['show', 'merge-freeze']);
    expect(r.code).toBe(0);
    const count = (s: string): number => r.stdout.split(s).length - 1;
    expect(count('merge pull requests by Thursday evening.')).toBe(1);
    expect(count('How to apply')).toBe(1);
    expect(count('the release branch is cut on Friday morning')).toBe(1);
  }, 60_000);

  it('with --floor 0 no note is both a result and a weak match (one KB and two KBs)', () => {
    w = zeroConfigWorld();
    fs.writeFileSync(
      path.join(w.memory, 'deploy_window.md'),
      '---\nname: deploy-window\ndescription: deploys to production run only between 10:00 and 16:00 on weekdays\n---\nNo evening deploys.\n',
    );
    w.recall(['add', '--title', 'redis eviction', '--insight', 'redis maxmemory-policy must be allkeys-lru for the cache cluster']);
    for (const q of ['friday redis', 'merge on friday', 'deploy friday evening', 'redis cluster']) {
      for (const extra of [[], ['--kb', w.memory]]) {
        // Each query first at the default floor (so a cached answer holds weak matches), then with it off.
        w.recall([q, ...extra]);
        const out = JSON.parse(w.recall([q, ...extra, '--floor', '0', '--json']).stdout) as {
          results: { id: string }[];
          weak: { id: string }[];
        };
        const results = out.results.map((r) => r.id);
        expect({ q, extra, twice: out.weak.map((r) => r.id).filter((id) => results.includes(id)) }).toEqual({ q, extra, twice: [] });
        expect(out.weak).toEqual([]);
        const md = w.recall([q, ...extra, '--floor', '0']).stdout;
        expect(md).not.toContain('Weak matches');
      }
    }
  }, 180_000);
});
