/**
 * `bin/recall --format json` with and without the fixture models installed: cross-encoder-driven
 * scores and MMR picks with them; `available: false` degradations and the embedded-only ranking
 * without them.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sigmoid } from '../../../operators/math/boosts.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const bin = path.join(repo, 'bin', 'recall');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-models-e2e-'));
const modelsDir = path.join(base, 'models');
fs.cpSync(path.join(repo, 'spec', 'fixtures', 'models'), modelsDir, { recursive: true });
afterAll(() => {
  spawnSync(bin, ['daemon', 'stop'], { env: env(true) });
  fs.rmSync(base, { recursive: true, force: true });
});

function env(withModels: boolean, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: base,
    REFLECT_STATE_DIR: path.join(base, withModels ? 'state-models' : 'state-none'),
    REFLECT_MODELS_DIR: withModels ? modelsDir : path.join(base, 'no-models'),
    REFLECT_CE_MODEL: 'fixture/tiny-ce',
    REFLECT_EMBED_MODEL: 'fixture/tiny-embed',
    ...extra,
  };
}

type Json = {
  results: { id: string; score: number; ce: number | null; relevance: number; arms: string[] }[];
  degraded: { stage: string; reason: string; message: string }[];
  arms: { arm: string; status: string }[];
};

function recall(args: string[], e: NodeJS.ProcessEnv): Json {
  const r = spawnSync(bin, ['--kb', 'examples/kb', ...args, '--format', 'json', '--no-cache'], { cwd: repo, env: e, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Json;
}

const Q = 'postgres connection pool exhausted in tests';

describe('recall with models', () => {
  it('scores with the cross-encoder, runs the vector arm, and diversifies with MMR', () => {
    const d = recall([Q, '--limit', '5'], env(true));
    expect(d.degraded.filter((x) => ['rerank', 'embed', 'arm:vector'].includes(x.stage))).toEqual([]);
    expect(d.arms.find((a) => a.arm === 'vector')!.status).toBe('ok');
    for (const r of d.results) {
      expect(r.ce).not.toBeNull();
      expect(r.relevance).toBeCloseTo(sigmoid(r.ce!), 9);
    }
    expect(d.results.some((r) => r.arms.includes('vector'))).toBe(true);
    // The order is the cross-encoder's: with it off, the same query ranks differently.
    const noCe = recall([Q, '--limit', '5'], env(true, { RECALL_CROSS_ENCODER: '0' }));
    expect(noCe.results.every((r) => r.ce === null)).toBe(true);
    expect(d.results.map((r) => r.id)).not.toEqual(noCe.results.map((r) => r.id));
  });

  it('picks a distinct note over near-duplicates with MMR', () => {
    const kb = path.join(base, 'dup-kb');
    const note = (id: string, title: string, body: string): void => {
      fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
      fs.writeFileSync(path.join(kb, 'documents', `${id}.md`), `---\nid: ${id}\ntitle: "${title}"\n---\n${body}\n`);
    };
    for (const id of ['dup-1', 'dup-2', 'dup-3'])
      note(id, 'postgres connection pool sizing', 'postgres connection pool sizing for pytest tests');
    // About the query too (every query word in its body), ranked below the copies, and different from them.
    note('other', 'kafka worker queue', 'postgres connection pool sizing for kafka worker queue');
    const run = (extra: string[]): string[] => {
      const r = spawnSync(
        bin,
        ['--kb', kb, 'postgres connection pool sizing', '--limit', '2', '--format', 'json', '--no-cache', ...extra],
        {
          cwd: repo,
          env: env(true, { RECALL_CROSS_ENCODER: '0' }),
          encoding: 'utf8',
        },
      );
      return (JSON.parse(r.stdout) as Json).results.map((x) => x.id);
    };
    expect(run(['--no-mmr']).filter((id) => id.startsWith('dup'))).toHaveLength(2);
    // The relevance in the score keeps the copies of the best match ahead of a note that matches less
    // well, so this checks the wiring with a stronger diversity setting than the default 0.7.
    const mmr = run(['--mmr-lambda', '0.5']);
    expect(mmr.filter((id) => id.startsWith('dup'))).toHaveLength(1);
    expect(mmr).toContain('other');
  });

  it('reports the models unavailable and keeps the embedded-only ranking without them', () => {
    const none = recall([Q, '--limit', '5'], env(false));
    expect(none.degraded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stage: 'rerank', reason: 'unavailable' }),
        expect.objectContaining({ stage: 'embed', reason: 'unavailable' }),
        expect.objectContaining({ stage: 'arm:vector', reason: 'unavailable' }),
      ]),
    );
    expect(none.results.every((r) => r.ce === null)).toBe(true);
    const off = recall(
      [Q, '--limit', '5'],
      env(true, { RECALL_CROSS_ENCODER: '0', RECALL_MMR: '0', REFLECT_MODELS_DIR: path.join(base, 'no-models') }),
    );
    expect(none.results.map((r) => r.id)).toEqual(off.results.map((r) => r.id));
    expect(none.results[0]!.id).toBe('lrn-pytest-pg-pool-fixture-c04e7a');
  });

  it('says a reindex is needed when the vectors were made by another model', () => {
    recall([Q], env(true));
    const other = path.join(modelsDir, 'fixture', 'tiny-embed-2');
    fs.cpSync(path.join(modelsDir, 'fixture', 'tiny-embed'), other, { recursive: true });
    const d = recall([Q], env(true, { REFLECT_EMBED_MODEL: 'fixture/tiny-embed-2', REFLECT_NO_DAEMON: '1' }));
    // The new model embeds notes as they are recalled (32 per recall), so the arm has vectors again.
    expect(d.arms.find((a) => a.arm === 'vector')!.status).toBe('ok');
  });
});
