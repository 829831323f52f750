/**
 * Two live notes of a KB that declare the same id, through the built CLI: a recall finds both,
 * `show` opens each by the id it lists, and `recall status` and `recall index` name both files in a
 * one-line warning.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { distinctKey } from '../../core/note/index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repo, 'bin', 'recall');
let kb: TempKb | null = null;
afterEach(() => {
  kb?.cleanup();
  kb = null;
});

const B_KEY = distinctKey('lrn-shared-id', 'b');
const WARNING = `warning documents/b.md: id lrn-shared-id is already the id of documents/a.md; this note is indexed as ${B_KEY}`;

function sharedKb(): TempKb {
  const k = tempKb();
  k.write(
    'documents/a.md',
    '---\nid: lrn-shared-id\ntitle: "Kafka consumer rebalancing storms"\n---\nConsumers rebalance constantly when max.poll.interval.ms is too low.\n',
  );
  k.write(
    'documents/b.md',
    '---\nid: lrn-shared-id\ntitle: "Kafka producer idempotence"\n---\nEnable enable.idempotence to avoid duplicate messages on retry.\n',
  );
  return k;
}

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const state = kb!.state;
  const r = spawnSync(bin, args, {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, ...driverEnv() },
    cwd: repo,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('two notes declaring one id, from the CLI', () => {
  it('a recall returns both, each under its own id', () => {
    kb = sharedKb();
    const r = run(['--kb', kb.root, 'kafka', '--format', 'json']);
    expect(r.code).toBe(0);
    const got = (JSON.parse(r.stdout) as { results: { id: string; title: string }[] }).results.map((x) => [x.id, x.title]);
    expect(got.sort()).toEqual(
      [
        ['lrn-shared-id', 'Kafka consumer rebalancing storms'],
        [B_KEY, 'Kafka producer idempotence'],
      ].sort(),
    );
  });

  it('show opens the first file by the declared id and the second by its new id', () => {
    kb = sharedKb();
    const a = run(['show', 'lrn-shared-id', '--kb', kb.root]);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('Kafka consumer rebalancing storms');
    expect(a.stdout).toContain(`[lrn-shared-id]  ${path.join(kb.root, 'documents', 'a.md')}`);
    const b = run(['show', B_KEY, '--kb', kb.root]);
    expect(b.code).toBe(0);
    expect(b.stdout).toContain('Kafka producer idempotence');
    expect(b.stdout).toContain(`[${B_KEY}]  ${path.join(kb.root, 'documents', 'b.md')}`);
  });

  it('status and index name both files in one warning line; neither note is skipped', () => {
    kb = sharedKb();
    const s = run(['status', '--kb', kb.root]);
    expect(s.stdout).toContain('notes     2 live, 0 archived, 0 forgotten; 0 skipped; 1 with a warning');
    expect(s.stdout.split('\n').filter((l) => l.includes(WARNING))).toHaveLength(1);
    const i = run(['index', '--kb', kb.root]);
    expect(i.code).toBe(0);
    expect(i.stdout).toContain('2 usable of 2 files');
    expect(i.stderr.split('\n').filter((l) => l.startsWith(`recall: ${WARNING}`))).toHaveLength(1);
  });

  it('forget and supersede take the id the second file is indexed under', () => {
    kb = sharedKb();
    kb.write('documents/c.md', '---\nid: lrn-other\ntitle: "Kafka lag alerting"\n---\nAlert on consumer lag growth, not on its level.\n');
    const s = run(['supersede', B_KEY, 'lrn-other', '--kb', kb.root]);
    expect([s.code, s.stderr]).toEqual([0, '']);
    expect(fs.readFileSync(path.join(kb.root, 'documents', 'b.md'), 'utf8')).toContain(`superseded_by: lrn-other`);
    const f = run(['forget', B_KEY, '--kb', kb.root]);
    expect([f.code, f.stderr]).toEqual([0, '']);
    expect(fs.existsSync(path.join(kb.root, 'documents', 'b.md'))).toBe(false);
    expect(run(['show', 'lrn-shared-id', '--kb', kb.root]).stdout).toContain('Kafka consumer rebalancing storms');
  });
});
