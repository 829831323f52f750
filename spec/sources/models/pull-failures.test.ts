import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { UsageError } from '../../../core/errors.js';
import { PullError } from '../../../sources/models/pull.js';
import { sendBytes } from './fake-hub.js';
import { ID, fixture, pullSuite, resolvePath } from './pull-suite.js';

const t = pullSuite();
const { pull, entries, modelDir } = t;

async function pullError(p: Promise<unknown>): Promise<PullError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PullError);
  return err as PullError;
}

const read = (file: string, id = ID): Buffer => fs.readFileSync(path.join(modelDir(id), ...file.split('/')));

function expectNothingLeft(): void {
  expect(entries().filter((e) => e.startsWith('.pull-'))).toEqual([]);
  expect(fs.existsSync(modelDir())).toBe(false);
}

describe('pullModel: failures leave nothing behind', () => {
  it('a required file answering 404 fails with E_PULL_HTTP naming the file and status', async () => {
    t.hub.route(resolvePath('tokenizer.json'), (_req, res) => {
      res.writeHead(404);
      res.end('Entry not found');
    });
    const err = await pullError(pull());
    expect(err.code).toBe('E_PULL_HTTP');
    expect(err.message).toContain('tokenizer.json');
    expect(err.message).toContain('404');
    expect(err.message).not.toContain('\n');
    expectNothingLeft();
  });

  it.each([401, 403])('HTTP %i for a required file is E_PULL_HTTP with a gated-repo hint', async (status) => {
    t.hub.route(resolvePath('config.json'), (_req, res) => {
      res.writeHead(status);
      res.end();
    });
    const err = await pullError(pull());
    expect(err.code).toBe('E_PULL_HTTP');
    expect(err.message).toMatch(new RegExp(`config\\.json.*HTTP ${status}.*gated or private`));
    expectNothingLeft();
  });

  it('a body cut short of its Content-Length fails with E_PULL_SIZE or E_PULL_NETWORK', async () => {
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      const body = fixture('onnx/model.onnx');
      res.writeHead(200, { 'content-length': body.length });
      res.write(body.subarray(0, 1000), () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const err = await pullError(pull());
    expect(['E_PULL_SIZE', 'E_PULL_NETWORK']).toContain(err.code);
    expect(err.message).toContain('onnx/model.onnx');
    expectNothingLeft();
  });

  it('fewer bytes than Content-Length on a cleanly ended body is E_PULL_SIZE', async () => {
    const fetchImpl: typeof fetch = async () => new Response('abc', { headers: { 'content-length': '10' } });
    const err = await pullError(pull({ fetchImpl }));
    expect(err.code).toBe('E_PULL_SIZE');
    expect(err.message).toBe('config.json: received 3 bytes but the hub announced 10');
    expectNothingLeft();
  });

  it('an empty required file is E_PULL_SIZE', async () => {
    t.hub.route(resolvePath('config.json'), (_req, res) => sendBytes(res, Buffer.alloc(0)));
    const err = await pullError(pull());
    expect(err.code).toBe('E_PULL_SIZE');
    expect(err.message).toBe('config.json is empty');
    expectNothingLeft();
  });

  it('a failed pull keeps the old files of an existing model intact', async () => {
    fs.mkdirSync(path.join(modelDir(), 'onnx'), { recursive: true });
    fs.writeFileSync(path.join(modelDir(), 'config.json'), 'OLD CONFIG');
    fs.writeFileSync(path.join(modelDir(), 'onnx', 'model.onnx'), 'OLD MODEL');
    fs.writeFileSync(path.join(modelDir(), 'README.md'), 'notes');
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(404);
      res.end();
    });
    const err = await pullError(pull());
    expect(err.code).toBe('E_PULL_HTTP');
    // config.json was downloaded before the failure, yet the old one is still in place.
    expect(t.hub.requests).toContain(resolvePath('config.json'));
    expect(read('config.json').toString()).toBe('OLD CONFIG');
    expect(read('onnx/model.onnx').toString()).toBe('OLD MODEL');
    expect(read('README.md').toString()).toBe('notes');
    expect(fs.readdirSync(modelDir()).sort()).toEqual(['README.md', 'config.json', 'onnx']);
    expect(entries()).toEqual(['acme']);
  });

  it('a failure while moving files in rolls back to the old files (E_PULL_IO)', async () => {
    fs.mkdirSync(modelDir(), { recursive: true });
    fs.writeFileSync(path.join(modelDir(), 'config.json'), 'OLD CONFIG');
    fs.writeFileSync(path.join(modelDir(), 'onnx'), 'a file where the onnx folder should be');
    const err = await pullError(pull());
    expect(err.code).toBe('E_PULL_IO');
    expect(err.message).toContain(modelDir());
    expect(read('config.json').toString()).toBe('OLD CONFIG');
    expect(fs.readdirSync(modelDir()).sort()).toEqual(['config.json', 'onnx']);
    expect(entries()).toEqual(['acme']);
  });

  it('a server that accepts the connection but never answers fails within the stall timeout', async () => {
    t.hub.route(resolvePath('config.json'), () => undefined);
    const started = Date.now();
    const err = await pullError(pull({ timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.code).toBe('E_PULL_NETWORK');
    expect(err.message).toContain('no response within 300 ms');
    expect(err.message).toContain('models can only be pulled with network access');
    expectNothingLeft();
  });

  it('a body that stops arriving mid-file fails with E_PULL_NETWORK after the stall timeout', async () => {
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
      res.writeHead(200, { 'content-length': 27078 });
      res.write(Buffer.alloc(1000, 1));
    });
    const started = Date.now();
    const err = await pullError(pull({ timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.code).toBe('E_PULL_NETWORK');
    expect(err.message).toBe('download of onnx/model.onnx stalled: no data for 300 ms (got 1000 of 27078 bytes)');
    expectNothingLeft();
  });

  it('a slow file keeps going while bytes arrive more often than the stall timeout', async () => {
    const chunk = Buffer.alloc(500, 3);
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
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

  it('an unresolvable host fails fast with E_PULL_NETWORK and the helpful message', async () => {
    const started = Date.now();
    const err = await pullError(pull({ endpoint: 'http://nonexistent.invalid' }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.code).toBe('E_PULL_NETWORK');
    expect(err.message).toMatch(
      /^cannot reach http:\/\/nonexistent\.invalid \(getaddrinfo [A-Z_]+ nonexistent\.invalid\): models can only be pulled with network access; copy a model folder into .*acme\/tiny-embed instead$/,
    );
    expectNothingLeft();
  });

  it('a refused connection fails with E_PULL_NETWORK', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await pullError(pull({ endpoint: `http://127.0.0.1:${port}` }));
    expect(err.code).toBe('E_PULL_NETWORK');
    expect(err.message).toContain(`cannot reach http://127.0.0.1:${port} (connect ECONNREFUSED`);
    expectNothingLeft();
  });

  it('cancelling through signal rejects with its reason and leaves nothing behind', async () => {
    t.hub.route(resolvePath('onnx/model.onnx'), (_req, res) => {
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
    expect(t.hub.requests).toEqual([]);
  });
});
