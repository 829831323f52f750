/**
 * Index health on every SQLite driver this Node can load: each driver's own errors are told apart
 * (corrupt / full / busy / read-only), a refresh commits in batches that survive an interrupted
 * refresh, corrupt data pages are healed on the next open, and the relevance estimate's prepared
 * statements (termStats, linkedNotes) read what the batches committed.
 */
import { describe, it, expect, afterEach, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openDatabase, sqliteDriver, sqliteErrorCode, useSqliteDriver, type SqliteDriver } from '../../sources/sqlite/sqlite.js';
import {
  classifyDbError,
  closeIndex,
  countNotes,
  indexFileFor,
  linkedNotes,
  markSuspect,
  openIndex,
  refreshIndex,
  searchFts,
  termStats,
  type IndexHandle,
} from '../../sources/index/index.js';
import { ftsQuery } from '../../sources/index/fts-query.js';
import { loadableDrivers } from '../helpers/driver.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const DRIVERS = loadableDrivers();

let dir = '';
let kb: TempKb | null = null;
const handles: IndexHandle[] = [];
afterEach(() => {
  for (const h of handles.splice(0)) closeIndex(h);
  useSqliteDriver('auto');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
  kb?.cleanup();
  kb = null;
});
afterAll(() => useSqliteDriver('auto'));

const tmp = (): string => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-health-')));
const open = (k: TempKb): IndexHandle => {
  const h = openIndex(k.root, k.state);
  handles.push(h);
  return h;
};
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
};

/** Overwrite every other page of the second half of a database file with a byte pattern. */
function damagePages(file: string, byte: number): void {
  const fd = fs.openSync(file, 'r+');
  const size = fs.fstatSync(fd).size;
  for (let off = Math.floor(size / 2 / 4096) * 4096; off < size; off += 8192) fs.writeSync(fd, Buffer.alloc(4096, byte), 0, 4096, off);
  fs.closeSync(fd);
}

function poolKb(n: number): TempKb {
  const k = tempKb();
  for (let i = 0; i < n; i += 1)
    k.write(`documents/n${i}.md`, noteText(`lrn-n${i}`, `postgres pool note ${i}`, `pgbouncer sizing detail ${i} `.repeat(30)));
  return k;
}

describe.each(DRIVERS)('%s driver', (driver) => {
  it("tells each failure apart from the driver's own errors: corrupt, full, busy, read-only", () => {
    useSqliteDriver(driver);
    const d = tmp();

    const foreign = path.join(d, 'foreign.sqlite');
    fs.writeFileSync(foreign, Buffer.alloc(8192, 0x42));
    const notDb = thrown(() => {
      const db = openDatabase(foreign);
      try {
        db.prepare('SELECT COUNT(*) FROM sqlite_master').get();
      } finally {
        db.close();
      }
    });
    expect(sqliteErrorCode(notDb)).toMatch(/^SQLITE_(NOTADB|CORRUPT)/);
    expect(classifyDbError(notDb)).toBe('corrupt');

    const small = openDatabase(path.join(d, 'small.sqlite'));
    small.exec('CREATE TABLE t(v TEXT)');
    small.pragma('max_page_count = 8');
    const full = thrown(() =>
      small.transaction(() => {
        for (let i = 0; i < 200; i += 1) small.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(2000));
      })(),
    );
    small.close();
    expect(sqliteErrorCode(full)).toMatch(/^SQLITE_FULL/);
    expect(classifyDbError(full)).toBe('full');

    const shared = path.join(d, 'shared.sqlite');
    const a = openDatabase(shared);
    a.exec('CREATE TABLE t(v INTEGER)');
    const b = openDatabase(shared);
    b.pragma('busy_timeout = 0');
    let busy: unknown = null;
    a.transaction(() => {
      a.prepare('INSERT INTO t VALUES (1)').run();
      busy = thrown(() => b.transaction(() => b.prepare('INSERT INTO t VALUES (2)').run()).immediate());
    }).immediate();
    a.close();
    b.close();
    expect(sqliteErrorCode(busy)).toMatch(/^SQLITE_(BUSY|LOCKED)/);
    expect(classifyDbError(busy)).toBe('busy');

    const ro = openDatabase(shared, { readonly: true, fileMustExist: true });
    const readOnly = thrown(() => ro.prepare('INSERT INTO t VALUES (3)').run());
    ro.close();
    expect(sqliteErrorCode(readOnly)).toMatch(/^SQLITE_READONLY/);
    expect(classifyDbError(readOnly)).toBe('readonly');

    // Not an SQLite error at all (a note that failed to parse): no code, never "corrupt".
    expect(sqliteErrorCode(new Error('bad YAML: database disk image is malformed'))).toBeNull();
  });

  it('commits in batches: a refresh stopped by its deadline keeps what it committed, and the next one finishes', () => {
    useSqliteDriver(driver);
    kb = poolKb(60);
    const h = open(kb);
    expect(h.file).not.toBe(':memory:');
    // A clock that passes the deadline after the first batch.
    let t = 0;
    const first = refreshIndex(h, { deadlineMs: 1, batchFiles: 20, now: () => t++ });
    expect(first.complete).toBe(false);
    expect(first.pending).toBe(40);
    closeIndex(h);
    // Another process (here: a new connection) sees the committed batch.
    const again = open(kb);
    expect(countNotes(again).live).toBe(20);
    const stats = termStats(again, ['pgbouncer']);
    expect(stats.live).toBe(20);
    expect(stats.df.get('pgbouncer')).toBe(20);
    const rest = refreshIndex(again);
    expect(rest.complete).toBe(true);
    expect(rest.added).toBe(40);
    // The statements prepared before the refresh read what it committed.
    expect(termStats(again, ['pgbouncer']).df.get('pgbouncer')).toBe(60);
    expect(searchFts(again, ftsQuery('postgres pool note 42')!, 5)[0]!.note.key).toBe('lrn-n42');
  });

  it('links notes that share an entity, through a rebuild after corruption as before it', () => {
    useSqliteDriver(driver);
    kb = poolKb(200);
    kb.write('documents/n1.entities.yaml', 'document_id: lrn-n1\nentities:\n  - name: "orders-db"\n    type: technology\n');
    kb.write('documents/n2.entities.yaml', 'document_id: lrn-n2\nentities:\n  - name: "orders-db"\n    type: technology\n');
    let h = open(kb);
    refreshIndex(h);
    const pairs = (x: IndexHandle): string[] => [
      ...(linkedNotes(x, ['documents/n1.md', 'documents/n2.md', 'documents/n3.md'], 5, Date.now()).get('documents/n1.md') ?? []),
    ];
    expect(pairs(h)).toEqual(['documents/n2.md']);
    closeIndex(h);

    damagePages(h.file, 0xa5);
    h = open(kb);
    if (!h.fallbackReason) {
      // Not seen on open: a query finds the damage, marks the index, and the next open checks and heals.
      let failure: unknown = null;
      try {
        refreshIndex(h, { force: true });
        for (let i = 0; i < 200; i += 1) searchFts(h, ftsQuery(`pgbouncer sizing detail ${i}`)!, 5);
        termStats(h, ['pgbouncer', 'sizing', 'detail']);
      } catch (err) {
        failure = err;
      }
      expect(failure).not.toBeNull();
      expect(classifyDbError(failure)).toBe('corrupt');
      markSuspect(h);
    }
    closeIndex(h);

    const healed = open(kb);
    expect(healed.file).not.toBe(':memory:');
    expect(healed.fallbackReason).toMatch(/corrupt|unreadable/);
    refreshIndex(healed);
    expect(countNotes(healed).live).toBe(200);
    expect(pairs(healed)).toEqual(['documents/n2.md']);
    expect(termStats(healed, ['pgbouncer']).df.get('pgbouncer')).toBe(200);
    const aside = fs.readdirSync(path.dirname(healed.file)).filter((f) => f.includes('.corrupt-'));
    expect(aside).toHaveLength(1);
  });
});

describe('wasm driver: a long refresh and its readers', () => {
  it('a reader opened during `recall index` reads the committed index at once instead of falling back to memory', async () => {
    if (!DRIVERS.includes('wasm')) return;
    kb = tempKb();
    for (let i = 0; i < 4000; i += 1)
      kb.write(`documents/n${i}.md`, noteText(`lrn-n${i}`, `kafka consumer lag note ${i}`, `partition rebalance detail ${i} `.repeat(20)));
    useSqliteDriver('wasm');
    const file = indexFileFor(kb.root, kb.state);
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: kb.state,
      REFLECT_STATE_DIR: kb.state,
      REFLECT_NO_DAEMON: '1',
      RECALL_SQLITE_DRIVER: 'wasm',
    };
    const child = spawn(process.execPath, [path.join(repo, 'dist', 'bundle', 'recall.mjs'), 'index', '--kb', kb.root], {
      env,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let running = true;
    void exited.then(() => (running = false));
    // Wait for the first committed batch.
    const probe = (): number => {
      try {
        const db = openDatabase(file, { readonly: true, fileMustExist: true });
        try {
          db.pragma('busy_timeout = 2000');
          return (db.prepare('SELECT COUNT(*) AS c FROM notes').get() as { c: number }).c;
        } finally {
          db.close();
        }
      } catch {
        return 0;
      }
    };
    while (running && probe() === 0) await new Promise((r) => setTimeout(r, 20));
    const reads: { ms: number; memory: boolean; live: number }[] = [];
    while (running && reads.length < 5) {
      const t0 = Date.now();
      const h = openIndex(kb.root, kb.state);
      const live = countNotes(h).live;
      searchFts(h, ftsQuery('kafka consumer lag')!, 5);
      reads.push({ ms: Date.now() - t0, memory: h.file === ':memory:', live });
      closeIndex(h);
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(await exited).toBe(0);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) {
      expect(r.memory).toBe(false);
      expect(r.live).toBeGreaterThan(0);
      expect(r.ms).toBeLessThan(900);
    }
  }, 120_000);
});

describe('the background refresher', () => {
  it('indexes the folders every recall indexes (the pulled team shard too) and removes none of them', () => {
    kb = tempKb();
    for (let i = 0; i < 3; i += 1) kb.write(`documents/k${i}.md`, noteText(`lrn-k${i}`, `kafka lag ${i}`, 'consumer lag'));
    const shardDocs = path.join(kb.state, 'team', 'shard', 'documents');
    fs.mkdirSync(shardDocs, { recursive: true });
    fs.writeFileSync(path.join(shardDocs, 't1.md'), noteText('lrn-team-1', 'kafka lag from the team', 'shared by a teammate'));
    // The processes and this one read the same index file: the same driver for all.
    useSqliteDriver((process.env['RECALL_SQLITE_DRIVER'] as SqliteDriver | undefined) ?? 'auto');
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: kb.state,
      REFLECT_STATE_DIR: kb.state,
      REFLECT_NO_DAEMON: '1',
      RECALL_SQLITE_DRIVER: sqliteDriver(),
    };
    const bundle = (name: string): string => path.join(repo, 'dist', 'bundle', name);
    expect(spawnSync(process.execPath, [bundle('recall.mjs'), 'index', '--kb', kb.root], { env }).status).toBe(0);
    kb.write('documents/k9.md', noteText('lrn-k9', 'kafka lag 9', 'added later'));
    expect(spawnSync(process.execPath, [bundle('refresher.mjs'), '--kb', kb.root], { env }).status).toBe(0);
    const h = open(kb);
    const paths = (h.db.prepare('SELECT path FROM notes ORDER BY path').all() as { path: string }[]).map((r) => r.path);
    expect(paths).toEqual(['@team/documents/t1.md', 'documents/k0.md', 'documents/k1.md', 'documents/k2.md', 'documents/k9.md']);
  });
});
