/**
 * Drives the built CLI (bin/recall → dist/bundle/recall.mjs) as a user would. `npm test` builds first.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repo, 'bin', 'recall');
let kb: TempKb | null = null;
afterEach(() => kb?.cleanup());

function run(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const state = kb?.state ?? fs.mkdtempSync('/tmp/recall-cli-state-');
  const r = spawnSync(bin, args, {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, ...driverEnv(), ...env },
    cwd: repo,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('bin/recall', () => {
  it('prints markdown results for the README quick-start query on the example KB', () => {
    const r = run(['--kb', 'examples/kb', 'postgres connection pool exhausted in tests']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^## Prior learnings relevant to `postgres connection pool exhausted in tests` — \d+ learnings/);
    expect(r.stdout).toContain('[lrn-pytest-pg-pool-fixture-c04e7a]');
    // The superseded note of the same topic is filtered out.
    expect(r.stdout).not.toContain('lrn-sqlalchemy-pool-exhausted-8b21d4');
  });

  it('prints the JSON envelope with scores, arms and degradations', () => {
    const r = run(['--kb', 'examples/kb', 'stripe webhook charged twice', '--format', 'json', '--limit', '3']);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as Record<string, unknown> & { results: Record<string, unknown>[] };
    expect(Object.keys(d).slice(0, 10)).toEqual([
      'query',
      'mode',
      'count',
      'ood_gated',
      'floor',
      'abstained',
      'temporal',
      'field',
      'economics',
      'cache_tier',
    ]);
    expect(d.results[0]).toMatchObject({ id: 'lrn-stripe-webhook-idempotency-b3e4f7', arms: ['bm25', 'graph'] });
    expect(typeof d.results[0]!['score']).toBe('number');
    expect(d['degraded']).toEqual(expect.arrayContaining([expect.objectContaining({ stage: 'arm:vector', reason: 'unavailable' })]));
  });

  it.each([
    [['--kb', 'examples/kb', 'q', '--bogus'], /Unknown argument: bogus/],
    [['--kb', 'examples/kb', 'q', '--limit', 'abc'], /--limit must be an integer between 1 and 1000/],
    [['--kb', 'examples/kb', 'q', '--limit', '0'], /--limit must be an integer between 1 and 1000/],
    [['--kb', 'examples/kb', 'q', '--limit', '99999'], /--limit must be an integer between 1 and 1000 \(got "99999"\)/],
    [['--kb', 'examples/kb', 'q', '--confidence', 'SOMETIMES'], /--confidence must be one of HIGH, MEDIUM, LOW, ANY/],
    [['--kb', 'examples/kb', 'q', '--min-overlap', '2'], /--min-overlap must be a number between 0 and 1/],
    [['--kb', 'examples/kb', 'q', '--format', 'xml'], /--format must be one of markdown, json, fleet-context/],
    [['--kb', 'examples/kb'], /empty query/],
    [['--kb', '/nonexistent/kb', 'q'], /--kb \/nonexistent\/kb: no such directory/],
  ])('rejects %j with a one-line error and exit 2', (args, message) => {
    const r = run(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('says so when the KB is empty, and exits 0', () => {
    kb = tempKb();
    const r = run(['--kb', kb.root, 'anything at all']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no learnings in .*documents; nothing to recall/);
  });

  it('never fails on malformed settings and reports them with --verbose', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha topic', 'alpha body'));
    kb.write('documents/broken.md', '---\ntitle: [oops\n---\n');
    const r = run(['--kb', kb.root, 'alpha topic', '--verbose'], { RECALL_TAG_ALPHA: 'lots', REFLECT_RECALL_LIMIT: '-3x' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[a]');
    expect(r.stderr).toContain('RECALL_TAG_ALPHA="lots" is not a valid number; using 0.2');
    expect(r.stderr).toMatch(/skipped documents\/broken\.md: invalid YAML frontmatter at line \d+/);
  });

  it('rebuilds the index with `recall index` and reports skipped files', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    kb.write('documents/bin.md', Buffer.from([0, 1, 2]));
    const r = run(['index', '--kb', kb.root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/indexed .*: 1 usable of 2 files \(2 added, 0 re-read, 0 removed\)/);
    expect(r.stderr).toMatch(/skipped documents\/bin\.md: binary file/);
  });
});
