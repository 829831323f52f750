/**
 * The real loading and inference path (transformers.js + onnxruntime-node) on the committed tiny
 * fixture models, compared with outputs computed independently with numpy (expected.json, written
 * by scripts/make-fixture-models.py from the same weights).
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelRuntime, lengthBatches } from '../../../sources/models/runtime.js';
import { modelPresence } from '../../../sources/models/model-store.js';
import { mmrSelect, cosine } from '../../../operators/math/mmr.js';
import { sigmoid } from '../../../operators/math/boosts.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURE_MODELS = path.resolve(here, '..', '..', 'fixtures', 'models');
const settings = { modelsDir: FIXTURE_MODELS, ceModel: 'fixture/tiny-ce', embedModel: 'fixture/tiny-embed' };
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURE_MODELS, 'expected.json'), 'utf8')) as {
  embed: { text: string; vector: number[]; input_ids: number[] }[];
  rerank: { query: string; text: string; logit: number; input_ids: number[]; token_type_ids: number[] }[];
};

function expectClose(actual: readonly number[], want: readonly number[], digits = 5): void {
  expect(actual).toHaveLength(want.length);
  actual.forEach((x, i) => expect(x).toBeCloseTo(want[i]!, digits));
}

describe('model runtime on the fixture models', () => {
  const rt = new ModelRuntime(settings);

  it('finds both fixture models present', () => {
    expect(modelPresence(settings, 'embed')).toMatchObject({ present: true, dtype: 'fp32' });
    expect(modelPresence(settings, 'rerank')).toMatchObject({ present: true, dtype: 'fp32' });
  });

  it('returns [] for empty input without loading a model', async () => {
    const fresh = new ModelRuntime(settings);
    expect(await fresh.embed([])).toEqual([]);
    expect(await fresh.rerank('q', [])).toEqual([]);
    expect(fresh.loaded()).toEqual({ embed: false, rerank: false });
  });

  it('embeds with masked mean pooling and unit normalisation, matching numpy (incl. punctuation, unknown words, truncation)', async () => {
    const vectors = await rt.embed(expected.embed.map((e) => e.text));
    vectors.forEach((v, i) => {
      expectClose(v, expected.embed[i]!.vector);
      expect(Math.hypot(...v)).toBeCloseTo(1, 6);
    });
  });

  it('gives the same vector whatever the batch and padding around it', async () => {
    const alone = await rt.embed(['redis cache']);
    const mixed = await rt.embed(['postgres connection pool with a much longer text around it', 'redis cache', 'x']);
    expectClose(mixed[1]!, alone[0]!, 6);
  });

  it('scores (query, text) pairs with the cross-encoder logit, matching numpy (pair encoding, order, truncation)', async () => {
    for (const c of expected.rerank) {
      const [logit] = await rt.rerank(c.query, [c.text]);
      expect(logit).toBeCloseTo(c.logit, 5);
    }
    // Pair order matters (token type ids differ): the query is segment A, the text segment B.
    const [ab] = await rt.rerank('pool sizing', ['postgres connection pool']);
    const [ba] = await rt.rerank('postgres connection pool', ['pool sizing']);
    expect(ab).not.toBeCloseTo(ba!, 3);
  });

  it('keeps input order across length-sorted batches', async () => {
    const texts = expected.rerank.filter((c) => c.query === 'pool sizing').map((c) => c.text);
    const batched = await rt.rerank('pool sizing', [...texts, ...texts.reverse()]);
    const want = expected.rerank.filter((c) => c.query === 'pool sizing').map((c) => c.logit);
    expectClose(batched, [...want, ...[...want].reverse()]);
    expect(lengthBatches(['a', 'ccc', 'bb', 'dddd', 'e'], 2)).toEqual([[3, 1], [2, 0], [4]]);
  });

  it('feeds the score as sigmoid(logit)', async () => {
    const [logit] = await rt.rerank('pool sizing', ['postgres connection pool']);
    expect(sigmoid(logit!)).toBeCloseTo(1 / (1 + Math.exp(-expected.rerank[0]!.logit)), 6);
  });

  it('lets MMR pick a distinct note over a near-duplicate with real vectors', async () => {
    const texts = ['postgres connection pool', 'postgres connection pool size', 'redis cache timeout'];
    const vecs = await rt.embed(texts);
    expect(cosine(vecs[0]!, vecs[1]!)).toBeGreaterThan(cosine(vecs[0]!, vecs[2]!));
    const items = [
      { key: 'a', score: 1.0 },
      { key: 'a2', score: 0.98 },
      { key: 'b', score: 0.9 },
    ];
    const vectors = new Map([
      ['a', vecs[0]!],
      ['a2', vecs[1]!],
      ['b', vecs[2]!],
    ]);
    expect(mmrSelect(items, 2, null, null).map((x) => x.key)).toEqual(['a', 'a2']);
    expect(mmrSelect(items, 2, vectors, null, 0.7).map((x) => x.key)).toEqual(['a', 'b']);
  });

  it('reports a missing model clearly', async () => {
    const none = new ModelRuntime({ ...settings, embedModel: 'fixture/absent' });
    await expect(none.embed(['x'])).rejects.toThrow(/fixture\/absent is not installed .*missing config\.json.*recall models pull/);
  });
});
