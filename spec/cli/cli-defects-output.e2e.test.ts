/** More defects a new user found in the CLI (see cli-defects.e2e.test.ts). */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { noteText, type TempKb } from '../helpers/kb.js';
import { bin, env, run, fixtureKb, releaseKb } from './defects-helpers.js';

let kb: TempKb | null = null;
afterEach(() => {
  releaseKb();
  kb = null;
});

describe('defects found trying the CLI as a new user (exit codes, verbosity, machine output, config)', () => {
  it('exit codes agree: missing --kb 2, --kb without notes 2, unknown id 1, unknown anchor 1', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-empty-'));
    expect(run(['--kb', '/nonexistent/kb', 'q'])).toMatchObject({
      code: 2,
      stderr: 'recall: error: --kb /nonexistent/kb: no such directory\n',
    });
    expect(run(['--kb', empty, 'q'])).toMatchObject({
      code: 2,
      stderr: `recall: error: --kb ${empty}: not a KB (no documents/ folder and no markdown files)\n`,
    });
    expect(run(['explain', 'q', '--kb', 'examples/kb', '--id', 'nope'])).toMatchObject({ code: 1, stdout: '' });
    const anchor = run(['stages', 'timeline', '--anchor', 'nope', '--kb', 'examples/kb']);
    expect(anchor.code).toBe(1);
    expect(JSON.parse(anchor.stdout)).toMatchObject({ step: 2, error: "anchor not found ('nope')" });
    expect(run(['show', 'nope', '--kb', 'examples/kb'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^recall: nope: no note with this id/),
    });
    expect(run(['trace', 'q', '--kb', 'examples/kb', '--kb', 'examples/kb'])).toMatchObject({
      code: 2,
      stderr: 'recall: error: trace reads one KB; --kb was given 2 times\n',
    });
  });

  it('an option before a command word runs the command; after `--` the word is searched', () => {
    const show = run(['--kb', 'examples/kb', 'show', 'lrn-pgbouncer-prepared-stmts-3fa91c']);
    expect(show.code).toBe(0);
    expect(show.stdout.split('\n')[0]).toBe('pgbouncer transaction pooling breaks asyncpg prepared statements');
    expect(run(['--kb', 'examples/kb', 'show', 'nope'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^recall: nope: no note/),
    });
    const searched = run(['--kb', 'examples/kb', '--format', 'json', '--', 'show']);
    expect(searched.code).toBe(0);
    expect(JSON.parse(searched.stdout)).toMatchObject({ query: 'show' });
  });

  it('which KB is read is shown: --verbose, JSON; a branch without a shard reads the project shard', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-shards-'));
    fs.mkdirSync(path.join(root, 'shards/billing-svc/documents'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'shards/billing-svc/documents/n.md'),
      noteText('lrn-shard', 'postgres pool shard note', 'postgres pool'),
    );
    const e = { RECALL_LEARNINGS_ROOT: root, CLAUDE_PROJECT_DIR: '/srv/billing-svc', RECALL_BRANCH: 'feat/new-thing' };
    const v = run(['postgres pool', '--verbose'], e);
    expect(v.stderr).toContain(
      `recall: reading ${path.join(root, 'shards/billing-svc')} (project shard of billing-svc; branch feat__new-thing has no shard of its own)`,
    );
    expect(v.stdout).toContain('[lrn-shard]');
    const j = JSON.parse(run(['postgres pool', '--json'], e).stdout) as { kb: unknown };
    expect(j.kb).toEqual({
      root: path.join(root, 'shards/billing-svc'),
      scope: 'project-shard',
      reason: 'project shard of billing-svc; branch feat__new-thing has no shard of its own',
      project: 'billing-svc',
      branch: 'feat__new-thing',
    });
  });

  it('--verbose puts a real warning first and the missing optional models on one line, last', () => {
    const r = run(['--kb', 'examples/kb', 'postgres pool', '--verbose'], { RECALL_TAG_ALPHA: 'lots' });
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('recall: RECALL_TAG_ALPHA="lots" is not a valid number; using 0.2');
    expect(lines.filter((l) => /model/.test(l))).toEqual([
      'recall: no model for vector, rerank, embed (optional; `recall models pull` installs them)',
    ]);
    expect(lines.at(-1)).toMatch(/^recall: no model for/);
  });

  it('machine output is --json everywhere: models status, daemon status, index, status', () => {
    expect(JSON.parse(run(['models', 'status', '--json']).stdout)).toMatchObject({
      models: [
        { role: 'rerank', present: false },
        { role: 'embed', present: false },
      ],
    });
    expect(JSON.parse(run(['daemon', 'status', '--json']).stdout)).toMatchObject({ running: false });
    expect(JSON.parse(run(['index', '--kb', 'examples/kb', '--json']).stdout)).toMatchObject({ files: 62, usable: 62, skipped: [] });
    expect(JSON.parse(run(['status', '--kb', 'examples/kb', '--json']).stdout)).toMatchObject({
      kb: { scope: 'explicit', layout: 'reflect' },
      notes: { live: 31 },
    });
    expect(JSON.parse(run(['--kb', 'examples/kb', 'stripe webhook', '--json']).stdout)).toHaveProperty('results');
  });

  it('a hook given bad stdin leaves a breadcrumb in last-event.json (as docs/hooks.md says) and still answers', () => {
    kb = fixtureKb();
    const r = spawnSync(bin, ['hook', 'user-prompt-submit'], {
      input: 'not json',
      env: env({ GLOBAL_LEARNINGS_PATH: kb.root }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('hookSpecificOutput');
    const crumb = JSON.parse(fs.readFileSync(path.join(kb.state, 'last-event.json'), 'utf8')) as { kind: string; detail: string };
    expect(crumb).toMatchObject({ kind: 'stdin', detail: expect.stringMatching(/^stdin is not JSON/) });
  });

  it('the query can come from stdin (`recall -`), and an empty one is a usage error', () => {
    expect(run(['--kb', 'examples/kb', '-'], {}, { input: 'stripe webhook charged twice\n' }).stdout).toMatch(
      /^## Prior learnings relevant to `stripe webhook charged twice`/,
    );
    expect(run(['--kb', 'examples/kb', '-'], {}, { input: '' })).toMatchObject({
      code: 2,
      stderr: 'recall: error: empty query on stdin\n',
    });
  });

  it('recall.toml settings apply under the environment, and a bad key is reported', () => {
    kb = fixtureKb();
    fs.mkdirSync(kb.state, { recursive: true });
    fs.writeFileSync(path.join(kb.state, 'recall.toml'), `kb = ${JSON.stringify(kb.root)}\nlimit = 1\nbogus_key = 3\n`);
    const r = run(['postgres connection pool', '--json']);
    const j = JSON.parse(r.stdout) as { count: number; kb: { root: string; scope: string } };
    expect(j.kb).toMatchObject({ root: kb.root, scope: 'env' });
    expect(j.count).toBe(1);
    expect(r.stderr).toContain('recall.toml: unknown setting "bogus_key"; ignored');
    // The environment wins over the file.
    expect((JSON.parse(run(['postgres connection pool', '--json'], { REFLECT_RECALL_LIMIT: '2' }).stdout) as { count: number }).count).toBe(
      2,
    );
  });

  it('shell completion is a command', () => {
    const r = run(['completion']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete');
  });
});
