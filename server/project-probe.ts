/**
 * Keeps a project whose files stop answering (a hung NFS or FUSE mount, a dying disk) from
 * starving every other project the recall server serves.
 *
 * A hook's code reads its project (the `.git` files, the scope rules' folders) and its transcript
 * synchronously, deep in the pipeline; in the server it runs on the one thread serving everyone, so
 * one read that never returns wedged the whole server. Before a call runs, a probe thread reads what
 * the call will read of its project folder and transcript (project-probe-worker.ts, with the hooks'
 * own functions); the call runs once that came back. A probe not back in time gives a verdict
 * instead (server/unreadable.ts), and the server goes on serving others.
 *
 * Threads of our own, not fs.promises raced against a timer: async fs runs on libuv's pool (4
 * threads by default) shared with all async work of the process; four reads stuck on a hung mount
 * would hold all four for good, and every later async file call (and dns, zlib, crypto) would queue
 * behind them. A thread stuck in read(2) holds only itself: it is set aside (it cannot be killed
 * while the kernel holds it) and another takes its place. Two bounds keep set-aside threads few:
 *   - one probe at a time per key (a project folder with the call's settings, a transcript): while
 *     a key's probe is stuck, its later calls are answered at once without a thread; when the stuck
 *     read returns (the mount recovered), the thread is ended and the key is probed again;
 *   - nothing on the mount a thread is stuck on is read (project, transcript, KB roots; on `/`, the
 *     stuck path and below): keys hold settings, per session in Claude Code: a place per session;
 *   - at most MAX_STUCK set aside in all: past that, no project is read (a key goes once its probe
 *     answered) until one returns (a thread per hung mount without end would not do).
 *
 * The call reads again on the server's thread after the probe (warm caches): a mount that hangs
 * between the two still blocks the server. KBs and memory folders are looked into at their root,
 * not walked (milliseconds per call); the state dir, read by every call, is not probed.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isUnder, mountPointOf } from '../io/mount-point.js';
import type { ProbeReply, ProbeRequest, ProbeStats, ProbeTask, ProbeVerdict, ProbeWorkerData } from './probe-messages.js';
export type { ProbeSources, ProbeStats, ProbeTask, ProbeVerdict } from './probe-messages.js';

/** Probe threads kept ready (the server has two cores' worth of requests at once; a probe takes ~1 ms). */
export const PROBE_THREADS = 2;
/** Probe threads at most in service (a burst of calls of many projects). */
export const MAX_PROBE_THREADS = 4;
/** Threads set aside, blocked on hung mounts, at most. */
export const MAX_STUCK = 8;
/** Threads that die before they are ready, in a row, before probes are turned off (a missing worker script). */
const MAX_FAILED_STARTS = 3;

type Thread = { worker: Worker; ready: boolean; job: Job | null };

interface Job {
  id: number;
  task: ProbeTask;
  /** The path the thread was reading last. */
  at: string;
  /** When the thread was given the job (0 while queued). */
  startedMs: number;
  /** When the probe is given up (the deadline of the call that began it). */
  untilMs: number;
  thread: Thread | null;
  stuck: boolean;
  /** Set aside: the mount it is stuck on (else its path), which no call reads until it returns. */
  out: string;
  waiters: ((v: ProbeVerdict) => void)[];
}

export class ProjectProbe {
  private readonly threads: Thread[] = [];
  private readonly queue: Job[] = [];
  private readonly jobs = new Map<string, Job>();
  private nextId = 1;
  private stuck = 0;
  private probed = 0;
  private unanswered = 0;
  private failedStarts = 0;
  private disabled: string | null = null;
  private closed = false;
  private readonly now: () => number;
  private readonly mountOf: (p: string) => string | null;
  private readonly workerData: ProbeWorkerData;

  /** `script`: the built worker entry (project-probe's bundle); `testStallReads`: the specs' seam, passed to each thread (io/read-stall.ts). */
  constructor(
    private readonly script: string,
    opts: { now?: () => number; testStallReads?: string | null; mountOf?: (p: string) => string | null } = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.mountOf = opts.mountOf ?? ((p) => mountPointOf(p));
    this.workerData = { testStallReads: opts.testStallReads ?? null };
  }

  /** Start the threads kept ready (they load in the background). */
  start(): void {
    while (!this.closed && !this.disabled && this.threads.length < PROBE_THREADS) this.spawn();
  }

  stats(): ProbeStats {
    const { stuck, probed, unanswered, disabled } = this;
    return { threads: this.threads.length, ready: this.threads.filter((t) => t.ready).length, stuck, probed, unanswered, disabled };
  }

  /**
   * Whether `task`'s paths answered by `untilMs`. Never rejects. With probes off (no thread could
   * start) every call may read: the server then behaves as it did without probes.
   */
  check(task: ProbeTask, untilMs: number): Promise<ProbeVerdict> {
    if (this.disabled || this.closed) return Promise.resolve({ ok: true });
    const running = this.jobs.get(task.key);
    if (running?.stuck) return Promise.resolve(this.refuse(stuckWhy(running, this.now())));
    const under = running ? undefined : [...task.dirs, ...task.files].map((p) => this.stuckAt(p)).find((j) => j !== undefined);
    if (under) return Promise.resolve(this.refuse(stuckWhy(under, this.now())));
    if (!running && this.stuck >= MAX_STUCK)
      return Promise.resolve(
        this.refuse(`${task.label} not read: ${this.stuck} reads on other file systems have not returned (hung mounts?); no context given`),
      );
    const job = running ?? this.begin(task, untilMs);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (v: ProbeVerdict): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!v.ok) this.unanswered += 1;
        resolve(v);
      };
      // The call that began the probe gives it up first (its timer may run before the probe's).
      const timer = setTimeout(
        () => {
          if (untilMs >= job.untilMs) this.overdue(job);
          finish({ ok: false, why: lateWhy(job, untilMs - this.now()) });
        },
        Math.max(0, untilMs - this.now()),
      );
      job.waiters.push(finish);
    });
  }

  /** End every thread (stuck ones end when their read returns); one mid-read counts as stuck: it may be. */
  close(): void {
    this.closed = true;
    this.stuck += this.threads.filter((t) => t.job && !t.job.stuck).length;
    for (const t of this.threads) void t.worker.terminate();
    this.threads.length = 0;
    for (const job of this.jobs.values()) settle(job, { ok: false, why: 'the recall server is stopping' });
    this.jobs.clear();
    this.queue.length = 0;
  }

  /** The stuck job whose path `p` is, or is under (its thread is blocked reading there). */
  private stuckAt(p: string): Job | undefined {
    for (const job of this.jobs.values()) if (job.stuck && isUnder(p, job.out)) return job;
    return undefined;
  }

  private refuse(why: string): ProbeVerdict {
    this.unanswered += 1;
    return { ok: false, why };
  }

  /** A new probe of `task`: on a free thread now, else when one frees; given up at `untilMs`. */
  private begin(task: ProbeTask, untilMs: number): Job {
    const job: Job = { id: this.nextId++, task, at: task.label, startedMs: 0, untilMs, thread: null, stuck: false, out: '', waiters: [] };
    this.jobs.set(task.key, job);
    this.probed += 1;
    const timer = setTimeout(() => this.overdue(job), Math.max(0, untilMs - this.now()));
    timer.unref();
    job.waiters.push(() => clearTimeout(timer));
    this.queue.push(job);
    this.pump();
    return job;
  }

  /** Give queued probes to ready, idle threads; start threads up to the cap. */
  private pump(): void {
    while (this.queue.length > 0) {
      const idle = this.threads.find((t) => t.ready && !t.job);
      if (!idle) {
        if (this.threads.length < MAX_PROBE_THREADS && !this.threads.some((t) => !t.ready)) this.spawn();
        return;
      }
      const job = this.queue.shift()!;
      idle.job = job;
      job.thread = idle;
      job.startedMs = this.now();
      const { dirs, files, sources } = job.task;
      const avoid = [...this.jobs.values()].filter((j) => j.stuck && path.isAbsolute(j.out)).map((j) => j.out);
      const req: ProbeRequest = { id: job.id, dirs, files, ...(sources ? { sources } : {}), avoid };
      idle.worker.postMessage(req);
    }
  }

  /** A probe past its time: still queued, it is dropped; running, its thread is set aside as stuck. */
  private overdue(job: Job): void {
    if (this.jobs.get(job.task.key) !== job || job.stuck) return;
    const thread = job.thread;
    if (!thread) {
      const i = this.queue.indexOf(job);
      if (i >= 0) this.queue.splice(i, 1);
      this.jobs.delete(job.task.key);
      settle(job, { ok: false, why: lateWhy(job, 0) });
      return;
    }
    // Left in the jobs map, marked stuck: the project's later calls are answered at once until it returns.
    job.stuck = true;
    const mount = this.mountOf(job.at); // (null for a label that is no path)
    job.out = mount && mount !== path.parse(mount).root ? mount : job.at;
    this.stuck += 1;
    const i = this.threads.indexOf(thread);
    if (i >= 0) this.threads.splice(i, 1);
    settle(job, { ok: false, why: lateWhy(job, 0) });
    this.start();
    this.pump();
  }

  private spawn(): void {
    if (this.closed || this.disabled) return;
    let worker: Worker;
    try {
      worker = new Worker(this.script, { workerData: this.workerData });
    } catch (err) {
      this.startFailed(err);
      return;
    }
    // Never keeps the process alive: the server exits on its idle timeout, stuck threads or not.
    worker.unref();
    const thread: Thread = { worker, ready: false, job: null };
    this.threads.push(thread);
    worker.on('message', (m: ProbeReply) => this.onMessage(thread, m));
    // A thread that fails says 'error', then 'exit': one end, told in the error's own words.
    worker.once('error', (err) => (worker.removeAllListeners('exit'), this.onExit(thread, err)));
    worker.on('exit', (code) => this.onExit(thread, new Error(`probe thread exited with code ${code}`)));
  }

  private onMessage(thread: Thread, m: ProbeReply): void {
    if ('ready' in m) {
      thread.ready = true;
      this.failedStarts = 0;
      return this.pump();
    }
    const job = thread.job;
    if (!job || job.id !== m.id) return;
    if ('at' in m) {
      job.at = m.at;
      return;
    }
    thread.job = null;
    if ('avoided' in m) {
      // Not read: a path of the call is under one where another thread is stuck.
      if (this.jobs.get(job.task.key) === job) this.jobs.delete(job.task.key);
      const stuck = this.stuckAt(m.avoided);
      settle(job, { ok: false, why: stuck ? stuckWhy(stuck, this.now()) : lateWhy(job, 0) });
      return this.pump();
    }
    if (job.stuck) {
      // The hung read returned (the mount recovered): the thread is ended, the project probed afresh next time.
      this.stuck -= 1;
      void thread.worker.terminate();
    }
    if (this.jobs.get(job.task.key) === job) this.jobs.delete(job.task.key);
    settle(job, { ok: true });
    this.pump();
  }

  private onExit(thread: Thread, err: unknown): void {
    const i = this.threads.indexOf(thread);
    if (i >= 0) this.threads.splice(i, 1);
    const job = thread.job;
    thread.job = null;
    if (job) {
      if (job.stuck) this.stuck -= 1;
      if (this.jobs.get(job.task.key) === job) this.jobs.delete(job.task.key);
      // A probe thread that failed is no hung read: the call reads as it did without probes.
      settle(job, { ok: true });
    }
    if (!thread.ready) return this.startFailed(err);
    if (!this.closed) this.start();
    this.pump();
  }

  private startFailed(err: unknown): void {
    this.failedStarts += 1;
    if (this.failedStarts < MAX_FAILED_STARTS) return this.start();
    this.disabled = `probe threads did not start: ${err instanceof Error ? err.message : String(err)}`;
    // Calls waiting for a thread read as they did without probes.
    for (const job of this.queue.splice(0)) {
      this.jobs.delete(job.task.key);
      settle(job, { ok: true });
    }
  }
}

function settle(job: Job, v: ProbeVerdict): void {
  for (const w of job.waiters.splice(0)) w(v);
}

function lateWhy(job: Job, leftMs: number): string {
  if (!job.thread && leftMs <= 0) return `${job.task.label} not read: no probe thread was free in time; no context given`;
  return `${job.at} did not answer in time (a hung or slow file system?); nothing read there, no context given`;
}

function stuckWhy(job: Job, nowMs: number): string {
  const s = Math.round((nowMs - job.startedMs) / 1000);
  return `${job.at} did not answer: a read there has been waiting ${s} s (a hung file system?); nothing read there, no context given`;
}
