/**
 * `npm run eval` on a small labelled KB with a JSON-lines query file: the metrics it prints are the
 * ones the definitions give.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let kb: TempKb;
afterEach(() => kb?.cleanup());

describe('eval script', () => {
  it('computes recall@k, MRR, nDCG@k and OOD noise per class', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'zeppelin mooring mast', 'zeppelin mooring procedures'));
    kb.write('documents/b.md', noteText('b', 'quokka habitat survey', 'quokka counts on the island'));
    kb.write('documents/c.md', noteText('c', 'unrelated bread baking', 'sourdough starter hydration'));
    const queries = path.join(kb.state, 'q.jsonl');
    fs.mkdirSync(kb.state, { recursive: true });
    fs.writeFileSync(
      queries,
      [
        { id: 'q1', class: 'exact', query: 'zeppelin mooring', relevant: ['a'] },
        { id: 'q2', class: 'exact', query: 'quokka habitat', relevant: ['b', 'missing-note'] },
        { id: 'q3', class: 'ood', query: 'xylophone tuning', relevant: [] },
        { id: 'q4', class: 'ood', query: 'sourdough hydration', relevant: [] },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    const r = spawnSync(
      process.execPath,
      [path.join(repo, 'dist', 'scripts', 'eval.js'), '--kb', kb.root, '--queries', queries, '--json'],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    type Row = {
      profile: string;
      recall_at_k: number | null;
      mrr: number | null;
      ndcg_at_k: number | null;
      ood_noise: number | null;
      false_abstention: number | null;
      precision: number | null;
    };
    const out = JSON.parse(r.stdout) as { summary: Row[] };
    const cli = out.summary.find((s) => s.profile === 'cli')!;
    // q1: 1 of 1 found at rank 1; q2: 1 of 2 found at rank 1 → nDCG = 1 / (1 + 1/log2(3)).
    expect(cli.recall_at_k).toBeCloseTo((1 + 0.5) / 2, 6);
    expect(cli.mrr).toBeCloseTo(1, 6);
    expect(cli.ndcg_at_k).toBeCloseTo((1 + 1 / (1 + 1 / Math.log2(3))) / 2, 6);
    // q3 finds nothing, q4 finds the bread note: half of the off-topic queries return something.
    expect(cli.ood_noise).toBeCloseTo(0.5, 6);
    // Both on-topic queries return their note and only it.
    expect(cli.false_abstention).toBe(0);
    expect(cli.precision).toBe(1);
    // Every caller's settings and plain BM25 are scored in the same run.
    expect(out.summary.map((s) => s.profile).sort()).toEqual(['bm25', 'cli', 'session-start', 'user-prompt']);
    expect(out.summary.find((s) => s.profile === 'bm25')!.ood_noise).toBeCloseTo(0.5, 6);
  });
});
