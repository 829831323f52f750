/**
 * One spec per defect a new user found in the CLI (each `it` names the defect it pins), driving the
 * built bin/recall and hook entry points as child processes on temporary KBs and state dirs.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { noteText, type TempKb } from '../helpers/kb.js';
import { bin, env, run, sh, fixtureKb, releaseKb } from './defects-helpers.js';

let kb: TempKb | null = null;
afterEach(() => {
  releaseKb();
  kb = null;
});

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
      'recall: error: --limit must be an integer between 1 and 1000 (got "abc")\n',
    );
    expect(run(['stages', 'index', 'x', '--kb', 'examples/kb', '--limit', 'two']).stderr).toBe(
      'recall: error: --limit must be an integer between 1 and 1000 (got "two")\n',
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
      .map((l) => JSON.parse(l) as { caller: string; project: string; kind?: string })
      // The prompt hook's own records (`kind: "hook"`) are events, not recalls.
      .filter((l) => l.kind === undefined);
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
});
