/**
 * One spec per defect a new user found in the CLI (each `it` names the defect it pins), driving the
 * built bin/recall and hook entry points as child processes on temporary KBs and state dirs.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repo, 'bin', 'recall');
let kb: TempKb | null = null;
afterEach(() => {
  kb?.cleanup();
  kb = null;
});

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const state = kb?.state ?? fs.mkdtempSync(path.join(os.tmpdir(), 'recall-defects-'));
  return { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, NO_COLOR: '1', ...extra };
}

function run(args: string[], extra: Record<string, string> = {}, opts: { cwd?: string; input?: string } = {}): Out {
  const r = spawnSync(bin, args, { encoding: 'utf8', env: env(extra), cwd: opts.cwd ?? repo, input: opts.input ?? '' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function sh(script: string, extra: Record<string, string> = {}): Out {
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${script}`], { encoding: 'utf8', env: env(extra), cwd: repo });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A KB with a quarantined fleet note, a note without frontmatter, and ordinary notes. */
function fixtureKb(): TempKb {
  const k = tempKb();
  k.write(
    'documents/pool.md',
    noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'size the postgres connection pool per worker', {
      project_id: 'billing-svc',
      confidence: 'high',
    }),
  );
  k.write(
    'documents/pool2.md',
    noteText('lrn-pool2', 'postgres pool timeout under load', 'pool timeout means the postgres connection pool is exhausted', {
      project_id: 'other',
    }),
  );
  k.write(
    'documents/fleet.md',
    noteText('fleet-pool', 'postgres connection pool exhausted fleet advice', 'fleet says raise the postgres connection pool', {
      quarantine: true,
      source_system: 'fleet',
      authority: 'advisory',
    }),
  );
  k.write('documents/plain.md', '# Postgres pool warm-up\n\nWarm the postgres connection pool before the load test starts.\n');
  return k;
}

describe('defects found trying the CLI as a new user', () => {
  it('`trace … | head -2` (text and jsonl) stops quietly with exit 0, no EPIPE stack', () => {
    for (const fmt of ['text', 'jsonl']) {
      const r = sh(`${bin} trace "postgres pool exhausted" --kb examples/kb --format ${fmt} | head -2`);
      expect({ fmt, code: r.code, stderr: r.stderr }).toEqual({ fmt, code: 0, stderr: '' });
      expect(r.stdout.trim().split('\n')).toHaveLength(2);
    }
    const list = sh(`${bin} list --kb examples/kb | head -1`);
    expect([list.code, list.stderr]).toEqual([0, '']);
  });

  it('--version, -V, version, -h, help and status are commands, not queries', () => {
    for (const args of [['--version'], ['-V'], ['version']])
      expect(run(args)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    for (const args of [['-h'], ['help']]) {
      const r = run(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^recall \[query\.\.\] \[options\]/);
      expect(r.stdout).toContain('recall status');
    }
    const status = run(['status', '--kb', 'examples/kb']);
    expect(status.stdout).toMatch(/^KB /);
    expect(status.stdout).not.toContain('Prior learnings');
  });

  it('an invalid choice names the valid ones', () => {
    expect(run(['stages', 'bogus']).stderr).toBe('recall: error: step must be one of workflow, index, timeline, hydrate (got "bogus")\n');
    expect(run(['models', 'bogus']).stderr).toBe('recall: error: action must be one of pull, status (got "bogus")\n');
    expect(run(['hooks', 'config', '--harness', 'foo']).stderr).toBe(
      'recall: error: --harness must be one of claude, codex, copilot (got "foo")\n',
    );
  });

  it('a bad number is reported as typed, not as NaN', () => {
    expect(run(['--kb', 'examples/kb', 'x', '--limit', 'abc']).stderr).toBe(
      'recall: error: --limit must be an integer of at least 1 (got "abc")\n',
    );
    expect(run(['stages', 'index', 'x', '--kb', 'examples/kb', '--limit', 'two']).stderr).toBe(
      'recall: error: --limit must be an integer of at least 1 (got "two")\n',
    );
    expect(run(['replay', '--limit', 'x']).stderr).toBe('recall: error: --limit must be an integer of at least 1 (got "x")\n');
  });

  it('hooks without an action names the actions; models and daemon default to status', () => {
    const hooks = run(['hooks']);
    expect([hooks.code, hooks.stderr]).toEqual([
      2,
      'recall: error: hooks needs an action: config, install, uninstall (recall hooks --help)\n',
    ]);
    expect(run(['models'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^models dir: /) });
    expect(run(['daemon'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^model daemon: not running/) });
    expect(run(['stages'])).toMatchObject({
      code: 2,
      stderr: 'recall: error: stages needs a step: workflow, index, timeline, hydrate (recall stages --help)\n',
    });
  });

  it('explain runs uncached by default: after a cached recall, a quarantined note is named at its bm25 rank, not "retrieved by no arm"', () => {
    kb = fixtureKb();
    expect(run(['--kb', kb.root, 'postgres connection pool exhausted']).code).toBe(0); // warms the cache
    const r = run(['explain', '--kb', kb.root, 'postgres connection pool exhausted', '--id', 'fleet-pool']);
    expect(r.stdout).toMatch(/^fleet-pool: retrieved by bm25 \(rank \d\).*, then quarantined/);
  });

  it('explain --format json (and --json) prints JSON', () => {
    const a = run([
      'explain',
      '--kb',
      'examples/kb',
      'stripe webhook charged twice',
      '--id',
      'lrn-stripe-webhook-idempotency-b3e4f7',
      '--format',
      'json',
    ]);
    expect(JSON.parse(a.stdout)).toMatchObject({ id: 'lrn-stripe-webhook-idempotency-b3e4f7', verdict: 'included', rank: 1, stage: null });
    const b = run([
      'explain',
      '--kb',
      'examples/kb',
      'stripe webhook charged twice',
      '--id',
      'lrn-stripe-webhook-idempotency-b3e4f7',
      '--json',
    ]);
    // The same answer (the score moves with the clock through the recency boost).
    const { score: _a, ...ja } = JSON.parse(a.stdout) as Record<string, unknown>;
    const { score: _b, ...jb } = JSON.parse(b.stdout) as Record<string, unknown>;
    expect(jb).toEqual(ja);
    expect(run(['explain', 'x', '--kb', 'examples/kb', '--id', 'a', '--format', 'xml']).code).toBe(2);
  });

  it('replay with nothing changed reports 0 changes: fleet-context keeps quarantined notes, hooks keep their project', () => {
    kb = fixtureKb();
    // Twins that only the project boost tells apart: in billing-svc the billing one ranks first.
    kb.write(
      'documents/twin-a.md',
      noteText('lrn-twin-a', 'redis cache stampede on deploy', 'redis cache stampede on deploy', { project_id: 'other' }),
    );
    kb.write(
      'documents/twin-b.md',
      noteText('lrn-twin-b', 'redis cache stampede on deploy', 'redis cache stampede on deploy', { project_id: 'billing-svc' }),
    );
    const project = path.join(path.dirname(kb.root), 'billing-svc');
    fs.mkdirSync(project);
    spawnSync('git', ['init', '-q', project]);
    const hookEnv = { GLOBAL_LEARNINGS_PATH: kb.root, CLAUDE_PROJECT_DIR: project };
    const hook = (name: string, input: object): void => {
      const r = spawnSync(bin, ['hook', name], { input: JSON.stringify(input), env: env(hookEnv), cwd: project, encoding: 'utf8' });
      expect(r.status).toBe(0);
    };
    hook('user-prompt-submit', { prompt: 'postgres connection pool exhausted in tests again', session_id: 's1', cwd: project });
    hook('subagent-start', { agent_type: 'postgres pool tuning', prompt: 'tune the postgres connection pool', cwd: project });
    hook('user-prompt-submit', { prompt: 'redis cache stampede on deploy again', session_id: 's1', cwd: project });
    expect(
      run(['--kb', kb.root, 'postgres connection pool exhausted', '--format', 'fleet-context'], {}, { cwd: project }).stdout,
    ).toContain('fleet advice');
    run(['--kb', kb.root, 'postgres pool timeout'], {}, { cwd: project });
    const log = fs
      .readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { caller: string; project: string });
    expect(log.map((l) => l.caller)).toEqual(['user-prompt-submit', 'subagent-start', 'user-prompt-submit', 'cli', 'cli']);
    expect(log[0]!.project).toBe('billing-svc');
    expect((log[2] as unknown as { ids: string[] }).ids.slice(0, 2)).toEqual(['lrn-twin-b', 'lrn-twin-a']);
    // Replayed from somewhere else entirely.
    const r = run(['replay', '--fail-on-change'], {}, { cwd: os.tmpdir() });
    expect(r.stdout).toMatch(/^replayed 5 recalls from \S+: 0 would change$/m);
    expect(r.code).toBe(0);
    // Without the logged project the twins swap: the project is what keeps the replay faithful.
    const file = path.join(kb.state, 'recall_log.jsonl');
    fs.writeFileSync(file, log.map(({ project: _p, ...rest }) => `${JSON.stringify(rest)}\n`).join(''));
    expect(run(['replay'], {}, { cwd: os.tmpdir() }).stdout).toMatch(/lrn-twin-a: rank 2 → 1/);
  });

  it('a note without frontmatter has one id everywhere: recall, stages, replay log', () => {
    kb = fixtureKb();
    const rec = JSON.parse(run(['--kb', kb.root, 'postgres pool warm-up before the load test', '--json']).stdout) as {
      results: { id: string }[];
    };
    expect(rec.results.map((r) => r.id)).toContain('plain');
    const stages = JSON.parse(run(['stages', 'index', 'postgres pool warm-up before the load test', '--kb', kb.root]).stdout) as {
      results: { id: string }[];
    };
    expect(stages.results.map((r) => r.id)).toContain('plain');
    const line = JSON.parse(fs.readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8').split('\n')[0]!) as {
      ids: string[];
      results: { id: string; key: string }[];
    };
    expect(line.ids).toContain('plain');
    expect(line.results.find((r) => r.id === 'plain')?.key).toBe('plain');
    expect(run(['show', 'plain', '--kb', kb.root]).stdout.split('\n')[0]).toBe('Postgres pool warm-up');
  });

  it('--field bogus: the header does not claim the field, and stderr says which fields exist', () => {
    const r = run(['--kb', 'examples/kb', 'stripe webhook', '--field', 'bogus']);
    expect(r.stdout.split('\n')[0]).not.toContain('(field: bogus)');
    expect(r.stderr).toMatch(
      /^recall: no result has a "bogus" field; showing key insights instead \(fields these results have: .*\brule\b.*\)$/m,
    );
  });

  it('--mode global without the reflect engine says so without --verbose', () => {
    const r = run(['--kb', 'examples/kb', 'deploy pipeline', '--mode', 'global']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('recall: --mode global needs the reflect engine');
  });

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

  it('a hook given bad stdin leaves a breadcrumb in last-event.json (as the README says) and still answers', () => {
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
