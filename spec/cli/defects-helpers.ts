/** Driving the built bin/recall (and shell pipelines around it) on temporary KBs and state dirs. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = path.join(repo, 'bin', 'recall');
/** The KB of the running spec (its state dir is the one env() gives), set by fixtureKb(). */
let current: TempKb | null = null;

/** Forget the running spec's KB, cleaning it up. */
export function releaseKb(): void {
  current?.cleanup();
  current = null;
}

export interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

export function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const state = current?.state ?? fs.mkdtempSync(path.join(os.tmpdir(), 'recall-defects-'));
  return { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, NO_COLOR: '1', ...extra };
}

export function run(args: string[], extra: Record<string, string> = {}, opts: { cwd?: string; input?: string } = {}): Out {
  const r = spawnSync(bin, args, { encoding: 'utf8', env: env(extra), cwd: opts.cwd ?? repo, input: opts.input ?? '' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function sh(script: string, extra: Record<string, string> = {}): Out {
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${script}`], { encoding: 'utf8', env: env(extra), cwd: repo });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A KB with a quarantined fleet note, a note without frontmatter, and ordinary notes. */
export function fixtureKb(): TempKb {
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
  current = k;
  return k;
}
