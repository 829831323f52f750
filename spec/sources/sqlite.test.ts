import { describe, it, expect, afterEach, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openDatabase, useSqliteDriver, STALE_WASM_LOCK_MS } from '../../sources/sqlite/sqlite.js';
import { closeIndex, openIndex, refreshIndex, searchFts } from '../../sources/index/index.js';
import { ftsQuery } from '../../sources/index/fts-query.js';
import { loadableDrivers } from '../helpers/driver.js';
import { tempKb, noteText, touchLater, type TempKb } from '../helpers/kb.js';

const DRIVERS = loadableDrivers();

let dir = '';
let kb: TempKb | null = null;
afterEach(() => {
  useSqliteDriver('auto');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
  kb?.cleanup();
  kb = null;
});
afterAll(() => useSqliteDriver('auto'));

const tmp = (): string => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-sqlite-')));

it('the WebAssembly driver is always available (it is what a plugin install without build scripts runs on)', () => {
  expect(DRIVERS).toContain('wasm');
});

describe.each(DRIVERS)('%s driver', (driver) => {
  it('keeps FTS5 (porter), named and positional parameters, BLOBs and data across reopen', () => {
    useSqliteDriver(driver);
    const file = path.join(tmp(), 'a.sqlite');
    const db = openDatabase(file);
    expect(db.driver).toBe(driver);
    db.exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, vec BLOB);
      CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61');`);
    db.prepare(`INSERT INTO t(name, vec) VALUES (@name, @vec)`).run({ name: 'alpha', vec: Buffer.from([1, 2, 3]) });
    db.prepare(`INSERT INTO t(name, vec) VALUES (?, ?)`).run('beta', null);
    db.prepare(`INSERT INTO f(rowid, body) VALUES (?, ?)`).run(1, 'connection pools exhausted');
    db.close();

    const again = openDatabase(file);
    const rows = again.prepare(`SELECT rowid, bm25(f) AS s FROM f WHERE f MATCH ?`).all('pool') as { rowid: number; s: number }[];
    expect(rows.map((r) => r.rowid)).toEqual([1]);
    expect(rows[0]!.s).toBeLessThan(0);
    const a = again.prepare(`SELECT name, vec FROM t WHERE name = ?`).get('alpha') as { name: string; vec: Uint8Array };
    expect(Array.from(a.vec)).toEqual([1, 2, 3]);
    expect(again.prepare(`SELECT name FROM t WHERE name = ?`).get('nobody')).toBeUndefined();
    expect((again.prepare(`SELECT COUNT(*) AS c FROM t`).get() as { c: number }).c).toBe(2);
    again.close();
  });

  it('rolls a transaction back when its function throws, and nests with savepoints', () => {
    useSqliteDriver(driver);
    const db = openDatabase(path.join(tmp(), 'tx.sqlite'));
    db.exec(`CREATE TABLE t(v INTEGER)`);
    const ins = db.prepare(`INSERT INTO t(v) VALUES (?)`);
    const count = (): number => (db.prepare(`SELECT COUNT(*) AS c FROM t`).get() as { c: number }).c;
    expect(() =>
      db
        .transaction(() => {
          ins.run(1);
          throw new Error('boom');
        })
        .immediate(),
    ).toThrow('boom');
    expect(count()).toBe(0);
    const inner = db.transaction(() => {
      ins.run(2);
      throw new Error('inner');
    });
    const outer = db.transaction(() => {
      ins.run(1);
      expect(() => inner()).toThrow('inner');
      ins.run(3);
      return 'done';
    });
    expect(outer.immediate()).toBe('done');
    expect((db.prepare(`SELECT v FROM t ORDER BY v`).all() as { v: number }[]).map((r) => r.v)).toEqual([1, 3]);
    db.close();
  });

  it('never creates a file it was asked to open read-only and existing', () => {
    useSqliteDriver(driver);
    const file = path.join(tmp(), 'reflect.db');
    expect(() => openDatabase(file, { readonly: true, fileMustExist: true })).toThrow(/does not exist/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('runs the index: refresh, search, edit, delete (same results as every other driver)', () => {
    useSqliteDriver(driver);
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres pool', 'connection pool exhausted in tests'));
    kb.write('documents/b.md', noteText('b', 'stripe webhook', 'retry the webhook with idempotency keys'));
    const h = openIndex(kb.root, kb.state);
    expect(h.fallbackReason).toBeNull();
    expect(refreshIndex(h)).toMatchObject({ added: 2 });
    const search = (q: string): string[] => searchFts(h, ftsQuery(q)!, 10).map((r) => r.note.key);
    expect(search('pools exhausted')).toEqual(['a']);
    touchLater(kb.write('documents/b.md', noteText('b', 'stripe webhook', 'now about pools too')));
    kb.remove('documents/a.md');
    expect(refreshIndex(h)).toMatchObject({ updated: 1, removed: 1 });
    expect(search('pools')).toEqual(['b']);
    closeIndex(h);
  });
});

describe('index files and drivers', () => {
  const NATIVE = DRIVERS.filter((d) => d !== 'wasm');

  it('the wasm driver keeps its own index file and never touches a native one (WAL, other locks)', () => {
    if (NATIVE.length === 0) return;
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'kafka lag', 'consumer lag grows'));
    useSqliteDriver(NATIVE[0]!);
    const native = openIndex(kb.root, kb.state);
    refreshIndex(native);
    closeIndex(native);
    const before = fs.statSync(native.file);
    useSqliteDriver('wasm');
    const wasm = openIndex(kb.root, kb.state);
    expect(wasm.file).not.toBe(native.file);
    expect(wasm.file).toMatch(/\.wasm\.sqlite$/);
    expect(wasm.fallbackReason).toBeNull();
    expect(refreshIndex(wasm)).toMatchObject({ added: 1 });
    expect(searchFts(wasm, ftsQuery('consumer lag')!, 5).map((r) => r.note.key)).toEqual(['a']);
    closeIndex(wasm);
    const after = fs.statSync(native.file);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(fs.readdirSync(path.dirname(native.file)).filter((f) => f.includes('corrupt'))).toEqual([]);
  });
});

describe('wasm driver locks', () => {
  it('holds no lock between statements (get() included), so a process that exits without close leaves none', () => {
    useSqliteDriver('wasm');
    const file = path.join(tmp(), 'g.sqlite');
    const db = openDatabase(file);
    db.exec(`CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (1), (2)`);
    expect(db.prepare(`SELECT v FROM t ORDER BY v`).get()).toEqual({ v: 1 });
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    db.close();
  });

  it('a statement that failed on a busy lock runs again once the lock is free (no stale error kept)', () => {
    useSqliteDriver('wasm');
    const file = path.join(tmp(), 'busy.sqlite');
    const db = openDatabase(file);
    db.exec(`CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (1)`);
    db.pragma('busy_timeout = 0');
    const count = db.prepare(`SELECT COUNT(*) AS c FROM t`);
    expect(count.get()).toEqual({ c: 1 });
    fs.mkdirSync(`${file}.lock`); // another process holds the file
    expect(() => count.get()).toThrow(/locked/);
    fs.rmdirSync(`${file}.lock`);
    expect(count.get()).toEqual({ c: 1 });
    db.close();
  });

  it('a locked index is used in memory for this process and never moved aside as corrupt', () => {
    useSqliteDriver('wasm');
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'kafka lag', 'consumer lag grows'));
    const first = openIndex(kb.root, kb.state);
    refreshIndex(first);
    closeIndex(first);
    fs.mkdirSync(`${first.file}.lock`); // another process is writing right now
    const h = openIndex(kb.root, kb.state);
    expect(h.file).toBe(':memory:');
    expect(h.fallbackReason).toMatch(/locked/);
    refreshIndex(h);
    expect(searchFts(h, ftsQuery('consumer lag')!, 5).map((r) => r.note.key)).toEqual(['a']);
    closeIndex(h);
    expect(fs.readdirSync(path.dirname(first.file)).filter((f) => f.includes('corrupt'))).toEqual([]);
    fs.rmdirSync(`${first.file}.lock`);
  });

  it('takes over a lock left by a process that died inside a transaction, once it is stale', () => {
    useSqliteDriver('wasm');
    const file = path.join(tmp(), 'l.sqlite');
    const db = openDatabase(file);
    db.exec(`CREATE TABLE t(v INTEGER)`);
    db.close();
    fs.mkdirSync(`${file}.lock`);
    const old = (Date.now() - STALE_WASM_LOCK_MS - 1000) / 1000;
    fs.utimesSync(`${file}.lock`, old, old);
    const again = openDatabase(file);
    again.prepare(`INSERT INTO t(v) VALUES (1)`).run();
    expect((again.prepare(`SELECT COUNT(*) AS c FROM t`).get() as { c: number }).c).toBe(1);
    again.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('takes over at once the lock of a process killed outright (SIGKILL) inside a write transaction, rolling its work back', async () => {
    const file = path.join(tmp(), 'killed.sqlite');
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    useSqliteDriver('wasm');
    const db0 = openDatabase(file);
    db0.exec('CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (1)');
    db0.close();
    const script = `
      import { openDatabase, useSqliteDriver } from ${JSON.stringify(path.join(root, 'dist', 'sources', 'sqlite', 'sqlite.js'))};
      useSqliteDriver('wasm');
      const db = openDatabase(${JSON.stringify(file)});
      const ins = db.prepare('INSERT INTO t(v) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 2000; i += 1) ins.run(i);
        process.stdout.write('in-transaction\\n');
        for (;;) {}
      }).immediate();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => c.toString().includes('in-transaction') && resolve()));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    const t0 = Date.now();
    const db = openDatabase(file);
    db.pragma('busy_timeout = 0');
    expect(db.prepare('SELECT COUNT(*) AS c FROM t').get()).toEqual({ c: 1 });
    db.prepare('INSERT INTO t(v) VALUES (2)').run();
    db.close();
    expect(Date.now() - t0).toBeLessThan(STALE_WASM_LOCK_MS / 10);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['killed.sqlite']);
  });

  it('never takes over the lock of a live process, whatever its record says', () => {
    useSqliteDriver('wasm');
    const file = path.join(tmp(), 'live.sqlite');
    const db0 = openDatabase(file);
    db0.exec('CREATE TABLE t(v INTEGER)');
    db0.close();
    fs.mkdirSync(`${file}.lock`);
    // A record that names this lock but a live process (the parent of this one).
    fs.writeFileSync(`${file}.lock-owner`, `${process.ppid} ${fs.statSync(`${file}.lock`).ino}`);
    const t = Date.now() / 1000;
    fs.utimesSync(`${file}.lock-owner`, t, t);
    fs.utimesSync(`${file}.lock`, t, t);
    const db = openDatabase(file);
    db.pragma('busy_timeout = 0');
    expect(() => db.prepare('SELECT COUNT(*) AS c FROM t').get()).toThrow(/locked/);
    db.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    fs.rmdirSync(`${file}.lock`);
  });

  it('finishes the running transaction and gives its lock back before dying of SIGTERM', async () => {
    const file = path.join(tmp(), 'sig.sqlite');
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    // A child inside a write transaction that lasts until we have sent SIGTERM (the file `sent`
    // appears after the kill), so the signal always lands mid-transaction, however loaded the machine.
    const sent = path.join(path.dirname(file), 'sent');
    const script = `
      import { existsSync } from 'node:fs';
      import { openDatabase, useSqliteDriver } from ${JSON.stringify(path.join(root, 'dist', 'sources', 'sqlite', 'sqlite.js'))};
      useSqliteDriver('wasm');
      const db = openDatabase(${JSON.stringify(file)});
      db.exec('CREATE TABLE IF NOT EXISTS t(v INTEGER)');
      const ins = db.prepare('INSERT INTO t(v) VALUES (?)');
      db.transaction(() => {
        ins.run(-1); // at least one row, whenever the signal comes
        process.stdout.write('in-transaction\\n');
        const cap = Date.now() + 20000;
        for (let i = 0; !existsSync(${JSON.stringify(sent)}) && Date.now() < cap; i += 1) ins.run(i);
      }).immediate();
      process.stdout.write('committed\\n');
      setTimeout(() => process.stdout.write('survived\\n'), 3000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('in-transaction') && !child.killed) {
        child.kill('SIGTERM');
        fs.writeFileSync(sent, '');
      }
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGTERM');
    expect(out).toContain('committed');
    expect(out).not.toContain('survived');
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    useSqliteDriver('wasm');
    const db = openDatabase(file);
    expect((db.prepare('SELECT COUNT(*) AS c FROM t').get() as { c: number }).c).toBeGreaterThan(0);
    db.close();
  });
});
