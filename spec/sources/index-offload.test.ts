/**
 * Index lookups on worker threads (the recall server's): the same answers as the calling thread's
 * connection, fresh after every commit and after the file is replaced, refused when a worker cannot
 * see the caller's generation, and the arms run a refused lookup themselves. Uses the built worker
 * bundle (`npm test` builds first).
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom } from 'rxjs';
import { closeIndex, indexGeneration, openIndex, refreshIndex, searchFts, type IndexHandle } from '../../sources/index/index.js';
import { graphArm } from '../../sources/arms/graph.js';
import { graphSearch } from '../../sources/index/graph-search.js';
import { bm25Arm } from '../../sources/arms/bm25.js';
import { IndexWorkers, MAX_OPEN_FILES, OFFLOAD_THREADS, type IndexOffload } from '../../sources/index/offload.js';
import { openDatabase } from '../../sources/sqlite/sqlite.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { waitFor } from '../helpers/wait.js';

const WORKER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bundle', 'index-worker.mjs');

let kb: TempKb | null = null;
let h: IndexHandle | null = null;
let workers: IndexWorkers | null = null;
afterEach(() => {
  workers?.close();
  if (h) closeIndex(h);
  kb?.cleanup();
  workers = null;
  h = null;
  kb = null;
});

const sidecar = (id: string, entity: string): string =>
  `document_id: ${id}\nentities:\n  - name: "${entity}"\n    type: concept\n    description: "${entity} issue"\n`;

function kbWithNotes(): { k: TempKb; idx: IndexHandle } {
  const k = tempKb();
  k.write('documents/pool.md', noteText('pool', 'redis pool exhausted', 'size the redis connection pool to the worker count'));
  k.write('documents/pool.entities.yaml', sidecar('pool', 'redis-connection-pool'));
  k.write('documents/lag.md', noteText('lag', 'kafka consumer lag', 'rebalancing stalls the consumer group'));
  k.write('documents/lag.entities.yaml', sidecar('lag', 'kafka-lag'));
  k.write('documents/tls.md', noteText('tls', 'tls handshake fails', 'the redis proxy needs the full certificate chain'));
  // pool and tls were written down in one session (the same archived moment).
  for (const f of ['documents/pool.md', 'documents/tls.md']) {
    k.write(
      f,
      fs
        .readFileSync(path.join(k.root, f), 'utf8')
        .replace('---\n## Learning', '---\n<!-- archived: 2026-03-02T10:00:00 -->\n\n## Learning'),
    );
  }
  const idx = openIndex(k.root, k.state);
  refreshIndex(idx);
  return { k, idx };
}

/** Threads started and loaded: a lookup is never queued for a thread that is still starting. */
async function started(w: IndexWorkers, n: number): Promise<IndexWorkers> {
  w.start();
  await waitFor(() => w.stats().ready >= n, 20_000, 20);
  expect(w.stats().ready).toBe(n);
  return w;
}

/** Plain data, as it crosses a thread boundary (Note objects are plain data either way). */
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

describe('index lookups on worker threads', () => {
  it('answers full-text and graph lookups exactly as the calling thread does', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    workers = await started(new IndexWorkers(WORKER), OFFLOAD_THREADS);
    const off = workers.forIndex(h);
    const match = '"redis" OR "pool"';
    const fts = await off.fts(match, 10);
    expect(fts.map((r) => r.note.key)).toEqual(['pool', 'tls']);
    expect(plain(fts)).toEqual(plain(searchFts(h, match, 10)));
    // Options cross the thread boundary: "pool" and "tls" were archived together, so the episode
    // context changes the scores, and the thread's answer is still the calling thread's.
    const withContext = await off.fts(match, 10, { episodeWeight: 1 });
    expect(plain(withContext)).toEqual(plain(searchFts(h, match, 10, { episodeWeight: 1 })));
    expect(plain(withContext)).not.toEqual(plain(fts));
    const now = Date.now();
    const graph = await off.graph('redis connection pool', 10, now);
    expect(graph.map((r) => r.note.key)).toEqual(['pool']);
    expect(plain(graph)).toEqual(plain(graphSearch(h, 'redis connection pool', 10, now)));
  });

  it('sees a note committed after its connection opened, and an index file replaced under the same name', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    workers = await started(new IndexWorkers(WORKER, 1), 1);
    const off = workers.forIndex(h);
    expect((await off.fts('"zookeeper"', 10)).length).toBe(0);
    kb.write('documents/zk.md', noteText('zk', 'zookeeper session expiry', 'raise the zookeeper session timeout'));
    refreshIndex(h);
    expect((await off.fts('"zookeeper"', 10)).map((r) => r.note.key)).toEqual(['zk']);
    // Replace the file: a new index (new inode) at the same path, without the zookeeper note.
    const file = h.file;
    closeIndex(h);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    kb.remove('documents/zk.md');
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const again = workers.forIndex(h);
    expect((await again.fts('"zookeeper"', 10)).length).toBe(0);
    expect((await again.fts('"kafka"', 10)).map((r) => r.note.key)).toEqual(['lag']);
  });

  it('refuses a file at a later generation than the caller reads', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    const copy = path.join(path.dirname(h.file), 'copy.sqlite');
    fs.copyFileSync(h.file, copy);
    for (const ext of ['-wal', '-shm']) if (fs.existsSync(h.file + ext)) fs.copyFileSync(h.file + ext, copy + ext);
    const db = openDatabase(copy);
    db.prepare(`UPDATE meta SET v = '999' WHERE k = 'generation'`).run();
    db.close();
    workers = await started(new IndexWorkers(WORKER, 1), 1);
    await expect(workers.forIndex({ ...h, file: copy }).fts('"redis"', 10)).rejects.toThrow(/at generation 999, past the caller's/);
    // The thread survives a refusal and answers the next lookup.
    expect((await workers.forIndex(h).fts('"redis"', 10)).length).toBe(2);
  });

  it('never answers from a rebuilt index at the same path and generation while the caller still reads the old file', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    // Another process replaces the index file: a fresh index, at the generation the old one was.
    const old = openIndex(kb.root, kb.state);
    for (const f of [h.file, `${h.file}-wal`, `${h.file}-shm`]) fs.rmSync(f, { force: true });
    kb.remove('documents/lag.md');
    const fresh = openIndex(kb.root, kb.state);
    refreshIndex(fresh);
    for (let i = indexGeneration(fresh); i < indexGeneration(old); i += 1) {
      kb.write(`documents/pad-${i}.md`, noteText(`pad-${i}`, 'padding', 'raises the generation'));
      refreshIndex(fresh);
    }
    workers = await started(new IndexWorkers(WORKER, 1), 1);
    try {
      expect(indexGeneration(fresh)).toBe(indexGeneration(old));
      // The caller's connection still reads the removed file: the thread must not answer from the new one.
      const own = searchFts(old, '"kafka"', 10).map((r) => r.note.key);
      expect(own).toEqual(['lag']);
      await expect(workers.forIndex(old).fts('"kafka"', 10)).rejects.toThrow(/not the caller's file/);
      expect((await workers.forIndex(fresh).fts('"kafka"', 10)).length).toBe(0);
    } finally {
      closeIndex(old);
      closeIndex(fresh);
    }
  });

  // Open files are read from /proc (Linux, as in CI).
  (fs.existsSync('/proc/self/fd') ? it : it.skip)(
    'keeps at most MAX_OPEN_FILES index files open per thread, closing the least recently used',
    async () => {
      const kbs = Array.from({ length: MAX_OPEN_FILES + 3 }, () => tempKb());
      try {
        const files = kbs.map((k) => {
          k.write('documents/one.md', noteText('one', 'redis pool', 'size the pool'));
          const idx = openIndex(k.root, k.state);
          refreshIndex(idx);
          closeIndex(idx);
          return idx.file;
        });
        ({ k: kb, idx: h } = kbWithNotes());
        workers = await started(new IndexWorkers(WORKER, 1), 1);
        for (const file of files) {
          // The caller's connection is closed once the lookup is sent: only the thread's stay open.
          const db = openDatabase(file, { readonly: true });
          const found = workers.forIndex({ ...h, db, file }).fts('"redis"', 10);
          db.close();
          expect((await found).length).toBe(1);
        }
        const openFiles = new Set(
          fs.readdirSync('/proc/self/fd').flatMap((fd) => {
            try {
              return [fs.readlinkSync(`/proc/self/fd/${fd}`)];
            } catch {
              return [];
            }
          }),
        );
        expect(files.filter((f) => openFiles.has(f))).toEqual(files.slice(-MAX_OPEN_FILES));
      } finally {
        for (const k of kbs) k.cleanup();
      }
    },
  );

  it('stops starting threads after MAX_FAILED_STARTS that died before they were ready, and rejects everything after close', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    const w = (workers = new IndexWorkers(path.join(kb.state, 'no-such-worker.mjs'), 1));
    const off = w.forIndex(h);
    // Never queued on a thread that is still starting: refused at once, run by the caller.
    await expect(off.fts('"redis"', 10)).rejects.toThrow(/starting/);
    // Each call starts a thread that dies; wait (capped) until the workers gave up on starting more.
    await waitFor(
      async () => {
        await off.fts('"redis"', 10).catch(() => undefined);
        return /disabled/.test(w.stats().lastRefusal ?? '');
      },
      20_000,
      20,
    );
    await expect(off.fts('"redis"', 10)).rejects.toThrow(/index workers disabled: .*no-such-worker/);
    expect(workers.stats()).toEqual(expect.objectContaining({ ready: 0, answered: 0 }));
    workers.close();
    await expect(off.fts('"redis"', 10)).rejects.toThrow(/closed/);
  });

  it('gives a lookup only to an idle thread, and replaces a thread whose lookup runs past the timeout', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    // A thread that loads, takes requests and never answers, as one stuck on a pathological query would.
    const stuck = path.join(kb.state, 'stuck-worker.mjs');
    fs.writeFileSync(
      stuck,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => {});\nparentPort.postMessage({ ready: true });\n",
    );
    workers = await started(new IndexWorkers(stuck, 1, 300), 1);
    const off = workers.forIndex(h);
    const first = off.fts('"redis"', 10);
    await expect(off.fts('"redis"', 10)).rejects.toThrow(/busy/);
    await expect(first).rejects.toThrow(/ran past 300 ms/);
    // A new thread takes the slot: the next lookup is accepted again (and times out in turn).
    await started(workers, 1);
    await expect(off.fts('"redis"', 10)).rejects.toThrow(/ran past 300 ms/);
  });
});

describe('arms with an offload', () => {
  const failing: IndexOffload = {
    fts: () => Promise.reject(new Error('worker gone')),
    graph: () => Promise.reject(new Error('worker gone')),
  };

  it('use what the offload answers', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    const note = searchFts(h, '"kafka"', 1)[0]!.note;
    const canned: IndexOffload = {
      fts: () => Promise.resolve([{ note, score: 7 }]),
      graph: () => Promise.resolve([{ note, score: 3, via: ['kafka-lag'] }]),
    };
    const bm25 = await firstValueFrom(bm25Arm('redis pool', 10, { ...h, offload: canned }));
    expect(bm25.map((x) => [x.note.key, x.score])).toEqual([['lag', 7]]);
    const graph = await firstValueFrom(graphArm('redis pool', 10, { ...h, offload: canned }, Date.now()));
    expect(graph.map((x) => x.note.key)).toEqual(['lag']);
  });

  it('run the lookups in the calling thread when the offload fails, with the same result', async () => {
    ({ k: kb, idx: h } = kbWithNotes());
    const opts = { expansions: ['certificate'] };
    const here = await firstValueFrom(bm25Arm('redis pool', 10, h, opts));
    const fallback = await firstValueFrom(bm25Arm('redis pool', 10, { ...h, offload: failing }, opts));
    expect(here.map((x) => x.note.key)).toEqual(['pool', 'tls']);
    expect(plain(fallback)).toEqual(plain(here));
    const now = Date.now();
    const graphHere = await firstValueFrom(graphArm('redis connection pool', 10, h, now));
    const graphFallback = await firstValueFrom(graphArm('redis connection pool', 10, { ...h, offload: failing }, now));
    expect(graphHere.map((x) => x.note.key)).toEqual(['pool']);
    expect(plain(graphFallback)).toEqual(plain(graphHere));
  });
});
