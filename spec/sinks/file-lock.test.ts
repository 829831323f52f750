/**
 * The writers' lock file: a lock is stale when its owner is gone, never because it is old. A holder
 * stalled past the old 10 s age rule (SIGSTOP) keeps its lock; a dead holder's lock is taken at once.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { LockBusyError, withFileLock } from '../../sinks/logs/index.js';
import { judgeLock, lockOwnerState, lockOwnerText, processStart, removeIfStale } from '../../sinks/logs/file-lock.js';
import { waitFor } from '../helpers/wait.js';

let dir: string;
let holder: ChildProcess | null = null;
afterEach(() => {
  if (holder?.pid) {
    try {
      process.kill(holder.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  holder = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A lock file `file.lock` naming `owner`, last written `ageMs` ago. */
function plantLock(file: string, owner: string, ageMs: number): void {
  fs.writeFileSync(`${file}.lock`, owner);
  const t = (Date.now() - ageMs) / 1000;
  fs.utimesSync(`${file}.lock`, t, t);
}

const fresh = (): string => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-lock-'));
  return path.join(dir, 'state.json');
};

describe('withFileLock', () => {
  it('a holder that lives but has not moved for a minute (SIGSTOP) keeps its lock', async () => {
    const file = fresh();
    holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = holder.pid!;
    expect(await waitFor(() => processStart(pid) !== '' || process.platform !== 'linux', 10_000, 20)).toBe(true);
    process.kill(pid, 'SIGSTOP');
    plantLock(file, `${pid} ${os.hostname()} ${processStart(pid)}`, 60_000);
    let ran = false;
    expect(() => withFileLock(file, () => (ran = true), 300)).toThrow(LockBusyError);
    expect(ran).toBe(false);
    // Still its lock: nothing removed it.
    expect(fs.readFileSync(`${file}.lock`, 'utf8')).toContain(String(pid));
  });

  it("a dead holder's lock is taken at once, however fresh", () => {
    const file = fresh();
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    plantLock(file, `${dead} ${os.hostname()} 1`, 0);
    const t0 = Date.now();
    expect(withFileLock(file, () => 'written', 2000)).toBe('written');
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("a waiter that read a lock's owner just before it released and exited never removes the next holder's lock", () => {
    const file = fresh();
    const lock = `${file}.lock`;
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    plantLock(file, `${dead} ${os.hostname()} 1`, 0);
    const judged = judgeLock(lock)!;
    expect(judged.stale).toBe(true);
    // Meanwhile the owner removed its lock and the next writer created its own (ext4 would give it
    // the freed inode number were the judged file not held open).
    fs.rmSync(lock);
    fs.writeFileSync(lock, lockOwnerText());
    removeIfStale(lock, judged);
    expect(fs.readFileSync(lock, 'utf8')).toBe(lockOwnerText());
  });

  it('a dead lock is removed by one waiter at a time; a removal turn left by a killed waiter is cleared by age', () => {
    const file = fresh();
    const lock = `${file}.lock`;
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    plantLock(file, `${dead} ${os.hostname()} 1`, 0);
    fs.writeFileSync(`${lock}.clear`, '');
    removeIfStale(lock, judgeLock(lock)!);
    expect(fs.existsSync(lock)).toBe(true);
    const t = (Date.now() - 60_000) / 1000;
    fs.utimesSync(`${lock}.clear`, t, t);
    removeIfStale(lock, judgeLock(lock)!);
    expect(fs.existsSync(`${lock}.clear`)).toBe(false);
    removeIfStale(lock, judgeLock(lock)!);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('a pid now held by another process (its start time differs) is a gone owner', () => {
    if (process.platform !== 'linux') return;
    const file = fresh();
    plantLock(file, `${process.ppid} ${os.hostname()} 1`, 0);
    expect(lockOwnerState(fs.readFileSync(`${file}.lock`, 'utf8'))).toBe('gone');
    expect(withFileLock(file, () => 'written', 2000)).toBe('written');
  });

  it('a lock naming another host, or no owner, is judged by its age', () => {
    const file = fresh();
    plantLock(file, '12345 another-host 99', 0);
    expect(() => withFileLock(file, () => 'written', 200)).toThrow(LockBusyError);
    plantLock(file, '12345 another-host 99', 60_000);
    expect(withFileLock(file, () => 'written', 2000)).toBe('written');
    plantLock(file, '', 0);
    expect(() => withFileLock(file, () => 'written', 200)).toThrow(LockBusyError);
    plantLock(file, '', 60_000);
    expect(withFileLock(file, () => 'written', 2000)).toBe('written');
  });

  it("a lock this user cannot open (another user's 0600 lock in a shared KB; here a socket) is judged by its age", async () => {
    const file = fresh();
    const lock = `${file}.lock`;
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(lock, resolve));
    try {
      expect(() => fs.openSync(lock, 'r')).toThrow();
      // Fresh: waited for, as a lock naming no owner is.
      expect(() => withFileLock(file, () => 'written', 200)).toThrow(LockBusyError);
      const t = (Date.now() - 60_000) / 1000;
      fs.utimesSync(lock, t, t);
      expect(withFileLock(file, () => 'written', 2000)).toBe('written');
    } finally {
      server.close();
    }
  });

  it('the lock names this process and this host while held, and is removed after', () => {
    const file = fresh();
    const seen = withFileLock(file, () => fs.readFileSync(`${file}.lock`, 'utf8'));
    expect(seen).toBe(lockOwnerText());
    expect(seen.split(' ').slice(0, 2)).toEqual([String(process.pid), os.hostname()]);
    expect(lockOwnerState(seen)).toBe('alive');
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
