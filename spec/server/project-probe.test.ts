/**
 * The recall server's project probe (server/project-probe.ts): a call's project files are read on a
 * probe thread first; one that does not answer in time gives a "not answering" verdict, its thread
 * is set aside (never reused while its read hangs), the project's later calls are answered at once
 * without a new thread, other projects are probed meanwhile, set-aside threads are bounded, and a
 * project whose read came back is probed afresh.
 *
 * The probe threads here run a stand-in worker: a folder hangs for as long as a `<folder>.hang`
 * file exists (a mount that hangs, then recovers), which the spec removes.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_PROBE_THREADS, MAX_STUCK, ProjectProbe } from '../../server/project-probe.js';
import { waitFor } from '../helpers/wait.js';

const WORKER = `
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
const nap = new Int32Array(new SharedArrayBuffer(4));
parentPort.on('message', (req) => {
  for (const p of [...req.dirs, ...req.files]) {
    parentPort.postMessage({ id: req.id, at: p });
    // Blocks this thread, as a read on a hung mount does, until the marker is gone.
    if (fs.existsSync(p + '.hang')) fs.writeFileSync(p + '.seen', '');
    while (fs.existsSync(p + '.hang')) Atomics.wait(nap, 0, 0, 20);
  }
  parentPort.postMessage({ id: req.id, done: true });
});
parentPort.postMessage({ ready: true });
`;

let dir: string;
let probe: ProjectProbe | null = null;
afterEach(() => {
  // Markers first: a thread blocked on one ends its wait and can be ended.
  if (dir) for (const f of fs.readdirSync(dir)) if (f.endsWith('.hang')) fs.rmSync(path.join(dir, f));
  probe?.close();
  probe = null;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Until a probe thread is loaded and free (a loaded machine may take seconds to start one). */
const threadReady = async (): Promise<void> => {
  expect(await waitFor(() => probe!.stats().ready > 0, 60_000, 20)).toBe(true);
};

async function setUp(): Promise<{ project: (name: string) => string; hang: (p: string) => void; recover: (p: string) => void }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-probe-'));
  const script = path.join(dir, 'worker.mjs');
  fs.writeFileSync(script, WORKER);
  probe = new ProjectProbe(script);
  probe.start();
  await threadReady();
  return {
    project: (name) => path.join(dir, name),
    hang: (p) => fs.writeFileSync(`${p}.hang`, ''),
    recover: (p) => fs.rmSync(`${p}.hang`),
  };
}

const task = (p: string) => ({ key: p, label: p, dirs: [p], files: [] });
/** A deadline far enough for a healthy probe on a loaded machine, short enough for a spec. */
const soon = (): number => Date.now() + 1500;

describe('ProjectProbe', () => {
  it('a project that answers: ok', async () => {
    const { project } = await setUp();
    expect(await probe!.check(task(project('a')), Date.now() + 30_000)).toEqual({ ok: true });
    expect(probe!.stats()).toMatchObject({ probed: 1, unanswered: 0, stuck: 0 });
  });

  it('a hung project: not ok in time, naming the path; its next calls at once; others still probed; probed again once it recovers', async () => {
    const { project, hang, recover } = await setUp();
    const hung = project('hung');
    hang(hung);
    const first = await probe!.check(task(hung), soon());
    expect(first.ok).toBe(false);
    expect(!first.ok && first.why).toContain(`${hung} did not answer`);
    expect(probe!.stats().stuck).toBe(1);

    // The project's next call is answered without waiting and without another thread.
    const t0 = Date.now();
    const again = await probe!.check(task(hung), Date.now() + 30_000);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(!again.ok && again.why).toMatch(/has been waiting/);
    expect(probe!.stats()).toMatchObject({ stuck: 1, probed: 1 });

    // Another project is probed by another thread meanwhile.
    await threadReady();
    expect(await probe!.check(task(project('fine')), Date.now() + 30_000)).toEqual({ ok: true });

    // The mount recovers: the stuck read returns, its thread is ended, and the project is probed afresh.
    recover(hung);
    expect(await waitFor(() => probe!.stats().stuck === 0, 30_000, 20)).toBe(true);
    expect(await probe!.check(task(hung), Date.now() + 30_000)).toEqual({ ok: true });
  }, 60_000);

  it('a hung project is set aside by the time its caller hears "not answering", whichever timer runs first', async () => {
    // A clock that moves 5 ms each time it is read: the caller's timer is then set a little shorter
    // than the probe's own, as happens when a loaded machine's clock ticks between the two.
    let t = Date.now();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-probe-'));
    const script = path.join(dir, 'worker.mjs');
    fs.writeFileSync(script, WORKER);
    probe = new ProjectProbe(script, { now: () => (t += 5) });
    probe.start();
    await threadReady();
    const hung = path.join(dir, 'hung');
    fs.writeFileSync(`${hung}.hang`, '');
    const verdict = await probe.check(task(hung), t + 300);
    expect(verdict.ok).toBe(false);
    expect(probe.stats().stuck).toBe(1);
  }, 60_000);

  it('the same hung folder under another key (other settings): answered at once, no other thread set aside', async () => {
    const { project, hang } = await setUp();
    const hung = project('hung');
    hang(hung);
    expect((await probe!.check(task(hung), soon())).ok).toBe(false);
    expect(probe!.stats().stuck).toBe(1);
    for (const key of ['terminal-2', 'terminal-3']) {
      const t0 = Date.now();
      const v = await probe!.check({ key: `${hung}\0${key}`, label: hung, dirs: [hung], files: [] }, Date.now() + 30_000);
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(!v.ok && v.why).toMatch(/has been waiting/);
    }
    // A folder under the stuck one, too.
    expect((await probe!.check(task(path.join(hung, 'sub')), Date.now() + 30_000)).ok).toBe(false);
    expect(probe!.stats()).toMatchObject({ stuck: 1, probed: 1 });
    // A sibling whose name starts alike is not under it.
    await threadReady();
    expect(await probe!.check(task(`${hung}-2`), Date.now() + 30_000)).toEqual({ ok: true });
  }, 60_000);

  it('another folder on the mount a thread is stuck on: answered at once, no other thread set aside; other mounts probed', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-probe-'));
    const script = path.join(dir, 'worker.mjs');
    fs.writeFileSync(script, WORKER);
    const mnt = path.join(dir, 'nfs');
    // The probe told that everything under `nfs/` is one mount.
    probe = new ProjectProbe(script, { mountOf: (p) => (p.startsWith(mnt + path.sep) ? mnt : '/') });
    probe.start();
    await threadReady();
    const a = path.join(mnt, 'a');
    fs.mkdirSync(mnt);
    fs.writeFileSync(`${a}.hang`, '');
    expect((await probe.check(task(a), soon())).ok).toBe(false);
    for (const other of ['b', 'c', 'd/e']) {
      const t0 = Date.now();
      const v = await probe.check(task(path.join(mnt, other)), Date.now() + 30_000);
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(!v.ok && v.why).toMatch(/has been waiting/);
    }
    expect(probe.stats()).toMatchObject({ stuck: 1, probed: 1 });
    await threadReady();
    expect(await probe.check(task(path.join(dir, 'local')), Date.now() + 30_000)).toEqual({ ok: true });
  }, 60_000);

  it('closing with a read in flight counts it as stuck: the server then does not wait for it to exit', async () => {
    const { project, hang } = await setUp();
    const hung = project('hung');
    hang(hung);
    const verdict = probe!.check(task(hung), Date.now() + 60_000);
    expect(await waitFor(() => fs.existsSync(`${hung}.seen`), 30_000, 20)).toBe(true);
    probe!.close();
    expect(probe!.stats().stuck).toBe(1);
    expect((await verdict).ok).toBe(false);
  }, 60_000);

  it('callers of one project share one probe', async () => {
    const { project, hang } = await setUp();
    const hung = project('hung');
    hang(hung);
    const verdicts = await Promise.all([
      probe!.check(task(hung), soon()),
      probe!.check(task(hung), soon()),
      probe!.check(task(hung), soon()),
    ]);
    expect(verdicts.map((v) => v.ok)).toEqual([false, false, false]);
    expect(probe!.stats()).toMatchObject({ probed: 1, stuck: 1 });
  }, 60_000);

  it(`at most ${MAX_STUCK} threads set aside: past that, a project not probed yet is not read, at once`, async () => {
    const { project, hang } = await setUp();
    const hung = Array.from({ length: MAX_STUCK }, (_, i) => project(`hung-${i}`));
    for (const p of hung) hang(p);
    // One at a time, each on a loaded thread: a probe that no thread took in time is not a stuck one.
    for (const p of hung) {
      await threadReady();
      expect((await probe!.check(task(p), soon())).ok).toBe(false);
    }
    expect(probe!.stats().stuck).toBe(MAX_STUCK);
    const t0 = Date.now();
    const next = await probe!.check(task(project('new')), Date.now() + 30_000);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(!next.ok && next.why).toMatch(/have not returned/);
    expect(probe!.stats().threads).toBeLessThanOrEqual(MAX_PROBE_THREADS);
  }, 60_000);

  it('a worker script that cannot start turns probes off: calls read as before', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-probe-'));
    probe = new ProjectProbe(path.join(dir, 'missing.mjs'));
    probe.start();
    expect(await waitFor(() => probe!.stats().disabled !== null, 30_000, 20)).toBe(true);
    // It says why (a thread that failed is counted once: its 'error' and its 'exit' are one failure).
    expect(probe.stats().disabled).toContain('missing.mjs');
    expect(await probe.check(task(path.join(dir, 'p')), Date.now() + 30_000)).toEqual({ ok: true });
  }, 60_000);
});
