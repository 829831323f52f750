import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { pullModel, sourceRepoFor } from '../../../sources/models/pull.js';
import { sendBytes } from './fake-hub.js';
import { ID, REPO, fixture, pullSuite, resolvePath } from './pull-suite.js';

const t = pullSuite();
const { pull, entries, modelDir } = t;
const JSON_FILES = ['config.json', 'tokenizer_config.json', 'tokenizer.json'];

const read = (file: string, id = ID): Buffer => fs.readFileSync(path.join(modelDir(id), ...file.split('/')));

describe('pullModel: success', () => {
  it('writes byte-identical files under the id and reports their sizes', async () => {
    const report = await pull();
    const expected = [...JSON_FILES, 'onnx/model.onnx'];
    for (const f of expected) expect(read(f).equals(fixture(f))).toBe(true);
    expect(report.id).toBe(ID);
    expect(report.repo).toBe(REPO);
    expect(report.dir).toBe(modelDir());
    expect(report.files.map((f) => f.name).sort()).toEqual([...expected].sort());
    for (const f of report.files) expect(f.bytes).toBe(fixture(f.name).length);
    expect(report.totalBytes).toBe(expected.reduce((n, f) => n + fixture(f).length, 0));
    expect(report.ms).toBeGreaterThanOrEqual(0);
    expect(t.hub.requests).toContain(resolvePath('onnx/model.onnx'));
    expect(entries()).toEqual(['acme']);
  });

  it('quantized: fetches onnx/model_quantized.onnx and not onnx/model.onnx', async () => {
    const report = await pull({ quantized: true });
    expect(read('onnx/model_quantized.onnx').equals(fixture('onnx/model_quantized.onnx'))).toBe(true);
    expect(fs.existsSync(path.join(modelDir(), 'onnx', 'model.onnx'))).toBe(false);
    expect(t.hub.requests).toContain(resolvePath('onnx/model_quantized.onnx'));
    expect(t.hub.requests).not.toContain(resolvePath('onnx/model.onnx'));
    expect(report.files.map((f) => f.name)).toContain('onnx/model_quantized.onnx');
  });

  it('follows a 302 redirect to another path (the hub sends large files to a CDN)', async () => {
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(302, { location: '/cdn-lfs/abc123/model.onnx' });
      res.end();
    });
    t.hub.route('/cdn-lfs/abc123/model.onnx', (_req, res) => sendBytes(res, fixture('onnx/model.onnx')));
    await pull();
    expect(t.hub.requests).toContain('/cdn-lfs/abc123/model.onnx');
    expect(read('onnx/model.onnx').equals(fixture('onnx/model.onnx'))).toBe(true);
  });

  it('treats a 404 for the optional special_tokens_map.json as absent, and installs it when present', async () => {
    const report = await pull();
    expect(t.hub.requests).toContain(resolvePath('special_tokens_map.json'));
    expect(report.files.map((f) => f.name)).not.toContain('special_tokens_map.json');
    expect(fs.existsSync(path.join(modelDir(), 'special_tokens_map.json'))).toBe(false);

    const map = Buffer.from('{"unk_token":"[UNK]"}');
    t.hub.route(resolvePath('special_tokens_map.json'), (_req, res) => sendBytes(res, map));
    const again = await pull();
    expect(again.files).toContainEqual({ name: 'special_tokens_map.json', bytes: map.length });
    expect(read('special_tokens_map.json').equals(map)).toBe(true);
  });

  it('keeps unrelated files of an existing model folder and replaces same-named ones', async () => {
    fs.mkdirSync(path.join(modelDir(), 'onnx'), { recursive: true });
    fs.writeFileSync(path.join(modelDir(), 'config.json'), 'OLD CONFIG');
    fs.writeFileSync(path.join(modelDir(), 'onnx', 'model.onnx'), 'OLD MODEL');
    fs.writeFileSync(path.join(modelDir(), 'README.md'), 'notes');
    await pull();
    expect(read('config.json').equals(fixture('config.json'))).toBe(true);
    expect(read('onnx/model.onnx').equals(fixture('onnx/model.onnx'))).toBe(true);
    expect(read('README.md').toString()).toBe('notes');
    expect(entries().filter((e) => e.startsWith('.pull-'))).toEqual([]);
  });

  it('defaults the repo to sourceRepoFor(id) and the endpoint to HF_ENDPOINT', async () => {
    const saved = process.env['HF_ENDPOINT'];
    process.env['HF_ENDPOINT'] = `${t.hub.endpoint}/`;
    try {
      const report = await pullModel({ id: 'Xenova/tiny-embed', modelsDir: t.modelsDir });
      expect(report.repo).toBe('Xenova/tiny-embed');
      expect(t.hub.requests).toContain(resolvePath('config.json', 'Xenova/tiny-embed'));
      expect(read('config.json', 'Xenova/tiny-embed').equals(fixture('config.json'))).toBe(true);
    } finally {
      if (saved === undefined) delete process.env['HF_ENDPOINT'];
      else process.env['HF_ENDPOINT'] = saved;
    }
  });

  it('sweeps .pull-* folders left by a killed pull more than a day ago, not recent ones', async () => {
    const stale = path.join(t.modelsDir, '.pull-stale1');
    const fresh = path.join(t.modelsDir, '.pull-fresh1');
    fs.mkdirSync(stale);
    fs.writeFileSync(path.join(stale, 'config.json'), 'x');
    fs.mkdirSync(fresh);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(stale, twoDaysAgo, twoDaysAgo);
    await pull();
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
  });
});

describe('pullModel: progress', () => {
  it('reports the final byte count and total of every file, once at its end', async () => {
    const calls: [string, number, number | null][] = [];
    const report = await pull({ onProgress: (file, received, total) => calls.push([file, received, total]) });
    for (const f of report.files) {
      const last = calls.filter((c) => c[0] === f.name).at(-1);
      expect(last).toEqual([f.name, f.bytes, f.bytes]);
    }
    expect(new Set(calls.map((c) => c[0]))).toEqual(new Set(report.files.map((f) => f.name)));
  });

  it('calls back at most every 100 ms per file while bytes trickle in', async () => {
    const chunk = Buffer.alloc(4000, 7);
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(200, { 'content-length': chunk.length * 10 });
      let sent = 0;
      const tick = setInterval(() => {
        res.write(chunk);
        sent += 1;
        if (sent === 10) {
          clearInterval(tick);
          res.end();
        }
      }, 40);
    });
    let clock = 0;
    const now = (): number => (clock = Date.now());
    const seen: { received: number; at: number }[] = [];
    await pull({
      now,
      onProgress: (file, received) => {
        if (file === 'onnx/model.onnx') seen.push({ received, at: clock });
      },
    });
    expect(seen.at(-1)?.received).toBe(40000);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.length).toBeLessThan(10); // fewer calls than chunks: throttled
    const throttled = seen.slice(0, -1); // the final call may come sooner
    for (let i = 1; i < throttled.length; i += 1) {
      expect(throttled[i]!.at - throttled[i - 1]!.at).toBeGreaterThanOrEqual(100);
    }
  });
});

describe('sourceRepoFor', () => {
  it.each([
    ['cross-encoder/ms-marco-MiniLM-L-6-v2', 'Xenova/ms-marco-MiniLM-L-6-v2'],
    ['sentence-transformers/all-mpnet-base-v2', 'Xenova/all-mpnet-base-v2'],
    ['sentence-transformers/all-MiniLM-L6-v2', 'Xenova/all-MiniLM-L6-v2'],
    ['Xenova/bge-small-en-v1.5', 'Xenova/bge-small-en-v1.5'],
    ['onnx-community/gte-small', 'onnx-community/gte-small'],
    ['someone/custom-model', 'someone/custom-model'],
  ])('%s → %s', (id, repo) => {
    expect(sourceRepoFor(id)).toBe(repo);
  });
});
