/**
 * The recall server's admission: at most `limit` requests run at once, the rest wait in order, and
 * a waiting request whose deadline no longer leaves room for a run is answered "too late" before the
 * deadline instead of never. In-process fallbacks of the thin client are bounded the same way.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Admission } from '../../server/admission.js';
import { takeFallbackSlot } from '../../client/fallback-slots.js';

function deferred(): { promise: Promise<string>; resolve: (v: string) => void } {
  let resolve: (v: string) => void = () => undefined;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Admission', () => {
  it('runs at most `limit` at once and the rest in arrival order', async () => {
    const a = new Admission({ limit: 1, maxQueued: 10 });
    const order: string[] = [];
    const first = deferred();
    const job = (name: string, p: Promise<string> = Promise.resolve(name)) =>
      a.submit({ kind: 'k', deadlineMs: Infinity, run: () => (order.push(name), p), tooLate: () => `late ${name}` });
    const results = [job('a', first.promise), job('b'), job('c')];
    expect(order).toEqual(['a']);
    expect(a.load()).toEqual({ running: 1, queued: 2, shed: 0 });
    first.resolve('a');
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('answers a waiting request "too late" before its deadline while the one ahead still runs', async () => {
    const now = 1_000_000;
    const a = new Admission({ limit: 1, maxQueued: 10, now: () => now });
    const blocker = deferred();
    const running = a.submit({ kind: 'hook', deadlineMs: Infinity, run: () => blocker.promise, tooLate: () => 'late' });
    // 100 ms left: less than a run's first estimate (300 ms) plus the margin, so it cannot start in time.
    const waiting = a.submit({ kind: 'hook', deadlineMs: now + 100, run: () => Promise.resolve('ran'), tooLate: (why) => `late: ${why}` });
    expect(await waiting).toMatch(/^late: the recall server was busy \(1 running, 0 waiting ahead\)/);
    expect(a.load()).toEqual({ running: 1, queued: 0, shed: 1 });
    blocker.resolve('done');
    expect(await running).toBe('done');
  });

  it('a request whose run still fits waits and runs; the learnt run time decides what fits', async () => {
    let now = 0;
    const a = new Admission({ limit: 1, maxQueued: 10, now: () => now });
    const blocker = deferred();
    const first = a.submit({ kind: 'hook', deadlineMs: Infinity, run: () => blocker.promise, tooLate: () => 'late' });
    const fits = a.submit({ kind: 'hook', deadlineMs: now + 60_000, run: () => Promise.resolve('ran'), tooLate: () => 'late' });
    now += 2_000; // the first run took 2 s: the estimate for this kind becomes 2 s
    blocker.resolve('first');
    expect(await Promise.all([first, fits])).toEqual(['first', 'ran']);
    expect(a.estimate('hook')).toBeGreaterThan(1_000);
    // With 2 s expected, a deadline 1.5 s away no longer fits when its turn comes.
    const blocker2 = deferred();
    const again = a.submit({ kind: 'hook', deadlineMs: Infinity, run: () => blocker2.promise, tooLate: () => 'late' });
    const tight = a.submit({ kind: 'hook', deadlineMs: now + 1_500, run: () => Promise.resolve('ran'), tooLate: () => 'too late' });
    expect(await tight).toBe('too late');
    blocker2.resolve('x');
    await again;
  });

  it('past maxQueued a newcomer is answered at once', async () => {
    const a = new Admission({ limit: 1, maxQueued: 1 });
    const blocker = deferred();
    const run = () => blocker.promise;
    const p1 = a.submit({ kind: 'k', deadlineMs: Infinity, run, tooLate: () => 'late' });
    const p2 = a.submit({ kind: 'k', deadlineMs: Infinity, run, tooLate: () => 'late' });
    expect(await a.submit({ kind: 'k', deadlineMs: Infinity, run, tooLate: (why) => why })).toMatch(/full \(1 running, 1 waiting\)/);
    blocker.resolve('ok');
    expect(await Promise.all([p1, p2])).toEqual(['ok', 'ok']);
  });
});

describe('in-process fallback places', () => {
  let dir = '';
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('at most N at once; a released or abandoned place is taken again', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-slots-'));
    const run = path.join(dir, 'run');
    const a = takeFallbackSlot(run, 2);
    const b = takeFallbackSlot(run, 2);
    expect(typeof a).toBe('object');
    expect(typeof b).toBe('object');
    expect(takeFallbackSlot(run, 2)).toBe('none');
    if (typeof a === 'object') a.release();
    const c = takeFallbackSlot(run, 2);
    expect(typeof c).toBe('object');
    // A place held by a process that is gone (killed mid-hook) is taken over.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    for (const f of fs.readdirSync(run)) fs.writeFileSync(path.join(run, f), dead);
    expect(typeof takeFallbackSlot(run, 2)).toBe('object');
    expect(fs.statSync(run).mode & 0o777).toBe(0o700);
  });

  it('a folder that cannot hold places leaves the hook unbounded rather than unanswered', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-slots-'));
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, '');
    expect(takeFallbackSlot(path.join(file, 'run'), 2)).toBe('unbounded');
  });
});
