import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../../core/errors.js';
import { PullError, pullModel, sourceRepoFor, type PullOptions } from '../../../sources/models/pull.js';
import { sendBytes, startFakeHub, type FakeHub } from './fake-hub.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(here, '..', '..', 'fixtures', 'models', 'fixture', 'tiny-embed');
const REPO = 'fixture/tiny-embed';
const ID = 'acme/tiny-embed';
const JSON_FILES = ['config.json', 'tokenizer_config.json', 'tokenizer.json'];
const fixture = (file: string): Buffer => fs.readFileSync(path.join(FIXTURE, ...file.split('/')));
const resolvePath = (file: string, repo = REPO): string => `/${repo}/resolve/main/${file}`;

let hub: FakeHub;
let modelsDir: string;

beforeAll(async () => {
  hub = await startFakeHub({ [REPO]: FIXTURE, 'Xenova/tiny-embed': FIXTURE });
});
afterAll(async () => {
  await hub.close();
});
beforeEach(() => {
  modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-pull-'));
});
afterEach(() => {
  hub.reset();
  fs.rmSync(modelsDir, { recursive: true, force: true });
});

const pull = (extra: Partial<PullOptions> = {}) =>
  pullModel({ id: ID, repo: REPO, modelsDir, endpoint: hub.endpoint, timeoutMs: 2000, ...extra });

async function pullError(p: Promise<unknown>): Promise<PullError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PullError);
  return err as PullError;
}

/** Entries of modelsDir (the temp folders are the ones named `.pull-*`). */
const entries = (): string[] => fs.readdirSync(modelsDir).sort();
const modelDir = (id = ID): string => path.join(modelsDir, ...id.split('/'));
const read = (file: string, id = ID): Buffer => fs.readFileSync(path.join(modelDir(id), ...file.split('/')));

function expectNothingLeft(): void {
  expect(entries().filter((e) => e.startsWith('.pull-'))).toEqual([]);
  expect(fs.existsSync(modelDir())).toBe(false);
}

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
    expect(hub.requests).toContain(resolvePath('onnx/model.onnx'));
    expect(entries()).toEqual(['acme']);
  });

  it('quantized: fetches onnx/model_quantized.onnx and not onnx/model.onnx', async () => {
    const report = await pull({ quantized: true });
    expect(read('onnx/model_quantized.onnx').equals(fixture('onnx/model_quantized.onnx'))).toBe(true);
    expect(fs.existsSync(path.join(modelDir(), 'onnx', 'model.onnx'))).toBe(false);
    expect(hub.requests).toContain(resolvePath('onnx/model_quantized.onnx'));
    expect(hub.requests).not.toContain(resolvePath('onnx/model.onnx'));
    expect(report.files.map((f) => f.name)).toContain('onnx/model_quantized.onnx');
  });

  it('follows a 302 redirect to another path (the hub sends large files to a CDN)', async () => {
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(302, { location: '/cdn-lfs/abc123/model.onnx' });
      res.end();
    });
    hub.route('/cdn-lfs/abc123/model.onnx', (_req, res) => sendBytes(res, fixture('onnx/model.onnx')));
    await pull();
    expect(hub.requests).toContain('/cdn-lfs/abc123/model.onnx');
    expect(read('onnx/model.onnx').equals(fixture('onnx/model.onnx'))).toBe(true);
  });

  it('treats a 404 for the optional special_tokens_map.json as absent, and installs it when present', async () => {
    const report = await pull();
    expect(hub.requests).toContain(resolvePath('special_tokens_map.json'));
    expect(report.files.map((f) => f.name)).not.toContain('special_tokens_map.json');
    expect(fs.existsSync(path.join(modelDir(), 'special_tokens_map.json'))).toBe(false);

    const map = Buffer.from('{"unk_token":"[UNK]"}');
    hub.route(resolvePath('special_tokens_map.json'), (_req, res) => sendBytes(res, map));
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
    process.env['HF_ENDPOINT'] = `${hub.endpoint}/`;
    try {
      const report = await pullModel({ id: 'Xenova/tiny-embed', modelsDir });
      expect(report.repo).toBe('Xenova/tiny-embed');
      expect(hub.requests).toContain(resolvePath('config.json', 'Xenova/tiny-embed'));
      expect(read('config.json', 'Xenova/tiny-embed').equals(fixture('config.json'))).toBe(true);
    } finally {
      if (saved === undefined) delete process.env['HF_ENDPOINT'];
      else process.env['HF_ENDPOINT'] = saved;
    }
  });

  it('sweeps .pull-* folders left by a killed pull more than a day ago, not recent ones', async () => {
    const stale = path.join(modelsDir, '.pull-stale1');
    const fresh = path.join(modelsDir, '.pull-fresh1');
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
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
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

describe('pullModel: failures leave nothing behind', () => {
  it('a required file answering 404 fails with E_HTTP naming the file and status', async () => {
    hub.route(resolvePath('tokenizer.json'), (_req, res) => {
      res.writeHead(404);
      res.end('Entry not found');
    });
    const err = await pullError(pull());
    expect(err.code).toBe('E_HTTP');
    expect(err.message).toContain('tokenizer.json');
    expect(err.message).toContain('404');
    expect(err.message).not.toContain('\n');
    expectNothingLeft();
  });

  it.each([401, 403])('HTTP %i for a required file is E_HTTP with a gated-repo hint', async (status) => {
    hub.route(resolvePath('config.json'), (_req, res) => {
      res.writeHead(status);
      res.end();
    });
    const err = await pullError(pull());
    expect(err.code).toBe('E_HTTP');
    expect(err.message).toMatch(new RegExp(`config\\.json.*HTTP ${status}.*gated or private`));
    expectNothingLeft();
  });

  it('a body cut short of its Content-Length fails with E_SIZE or E_NETWORK', async () => {
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      const body = fixture('onnx/model.onnx');
      res.writeHead(200, { 'content-length': body.length });
      res.write(body.subarray(0, 1000), () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const err = await pullError(pull());
    expect(['E_SIZE', 'E_NETWORK']).toContain(err.code);
    expect(err.message).toContain('onnx/model.onnx');
    expectNothingLeft();
  });

  it('fewer bytes than Content-Length on a cleanly ended body is E_SIZE', async () => {
    const fetchImpl: typeof fetch = async () => new Response('abc', { headers: { 'content-length': '10' } });
    const err = await pullError(pull({ fetchImpl }));
    expect(err.code).toBe('E_SIZE');
    expect(err.message).toBe('config.json: received 3 bytes but the hub announced 10');
    expectNothingLeft();
  });

  it('an empty required file is E_SIZE', async () => {
    hub.route(resolvePath('config.json'), (_req, res) => sendBytes(res, Buffer.alloc(0)));
    const err = await pullError(pull());
    expect(err.code).toBe('E_SIZE');
    expect(err.message).toBe('config.json is empty');
    expectNothingLeft();
  });

  it('a failed pull keeps the old files of an existing model intact', async () => {
    fs.mkdirSync(path.join(modelDir(), 'onnx'), { recursive: true });
    fs.writeFileSync(path.join(modelDir(), 'config.json'), 'OLD CONFIG');
    fs.writeFileSync(path.join(modelDir(), 'onnx', 'model.onnx'), 'OLD MODEL');
    fs.writeFileSync(path.join(modelDir(), 'README.md'), 'notes');
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(404);
      res.end();
    });
    const err = await pullError(pull());
    expect(err.code).toBe('E_HTTP');
    // config.json was downloaded before the failure, yet the old one is still in place.
    expect(hub.requests).toContain(resolvePath('config.json'));
    expect(read('config.json').toString()).toBe('OLD CONFIG');
    expect(read('onnx/model.onnx').toString()).toBe('OLD MODEL');
    expect(read('README.md').toString()).toBe('notes');
    expect(fs.readdirSync(modelDir()).sort()).toEqual(['README.md', 'config.json', 'onnx']);
    expect(entries()).toEqual(['acme']);
  });

  it('a failure while moving files in rolls back to the old files (E_IO)', async () => {
    fs.mkdirSync(modelDir(), { recursive: true });
    fs.writeFileSync(path.join(modelDir(), 'config.json'), 'OLD CONFIG');
    fs.writeFileSync(path.join(modelDir(), 'onnx'), 'a file where the onnx folder should be');
    const err = await pullError(pull());
    expect(err.code).toBe('E_IO');
    expect(err.message).toContain(modelDir());
    expect(read('config.json').toString()).toBe('OLD CONFIG');
    expect(fs.readdirSync(modelDir()).sort()).toEqual(['config.json', 'onnx']);
    expect(entries()).toEqual(['acme']);
  });

  it('a server that accepts the connection but never answers fails within the stall timeout', async () => {
    hub.route(resolvePath('config.json'), () => undefined);
    const started = Date.now();
    const err = await pullError(pull({ timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.code).toBe('E_NETWORK');
    expect(err.message).toContain('no response within 300 ms');
    expect(err.message).toContain('models can only be pulled with network access');
    expectNothingLeft();
  });

  it('a body that stops arriving mid-file fails with E_NETWORK after the stall timeout', async () => {
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(200, { 'content-length': 27078 });
      res.write(Buffer.alloc(1000, 1));
    });
    const started = Date.now();
    const err = await pullError(pull({ timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.code).toBe('E_NETWORK');
    expect(err.message).toBe('download of onnx/model.onnx stalled: no data for 300 ms (got 1000 of 27078 bytes)');
    expectNothingLeft();
  });

  it('a slow file keeps going while bytes arrive more often than the stall timeout', async () => {
    const chunk = Buffer.alloc(500, 3);
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(200, { 'content-length': chunk.length * 8 });
      let sent = 0;
      const tick = setInterval(() => {
        res.write(chunk);
        if (++sent === 8) {
          clearInterval(tick);
          res.end();
        }
      }, 100);
    });
    const report = await pull({ timeoutMs: 300 }); // 800 ms in total, never 300 ms without bytes
    expect(report.files).toContainEqual({ name: 'onnx/model.onnx', bytes: 4000 });
  });

  it('an unresolvable host fails fast with E_NETWORK and the helpful message', async () => {
    const started = Date.now();
    const err = await pullError(pull({ endpoint: 'http://nonexistent.invalid' }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.code).toBe('E_NETWORK');
    expect(err.message).toMatch(
      /^cannot reach http:\/\/nonexistent\.invalid \(getaddrinfo [A-Z_]+ nonexistent\.invalid\): models can only be pulled with network access; copy a model folder into .*acme\/tiny-embed instead$/,
    );
    expectNothingLeft();
  });

  it('a refused connection fails with E_NETWORK', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await pullError(pull({ endpoint: `http://127.0.0.1:${port}` }));
    expect(err.code).toBe('E_NETWORK');
    expect(err.message).toContain(`cannot reach http://127.0.0.1:${port} (connect ECONNREFUSED`);
    expectNothingLeft();
  });

  it('cancelling through signal rejects with its reason and leaves nothing behind', async () => {
    hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(200, { 'content-length': 27078 });
      res.write(Buffer.alloc(1000, 1));
    });
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    const p = pull({
      signal: controller.signal,
      onProgress: (file) => {
        if (file === 'onnx/model.onnx') controller.abort(reason);
      },
    });
    await expect(p).rejects.toBe(reason);
    expectNothingLeft();
  });

  it('rejects an id that would escape modelsDir with a UsageError, before any request', async () => {
    for (const id of ['../evil', 'a/../../b', '/abs/path', '.hidden', 'a//b']) {
      await expect(pull({ id })).rejects.toBeInstanceOf(UsageError);
    }
    expect(hub.requests).toEqual([]);
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
