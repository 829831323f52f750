/**
 * Index lookups on worker threads, for a long-lived process (the recall server).
 *
 * SQLite calls are synchronous, so in one thread a recall's lexical query, its related-word query
 * and the graph walk run one after the other (at 100k notes about 50-80, 20-35 and 35 ms). Each
 * worker here holds its own read-only connection to the index file (WAL: a reader sees the last
 * commit and never waits for the writer), so the three run at the same time on a multi-core machine.
 * A one-shot CLI does not use this: starting a thread and loading SQLite in it costs more than the
 * overlap saves.
 *
 * Results are the ones the caller's own connection would give: every request carries the index
 * file's instance id and the generation the caller reads, and a worker answers only from a
 * connection to that same file at that same generation, checked in the read transaction that runs
 * the lookup (see sources/index/offload-worker.ts). A lookup is given only to a thread that is started and
 * idle; one that is refused, fails, crashes or runs past LOOKUP_TIMEOUT_MS (the thread is then
 * replaced) rejects its promise, and the arms run it in the calling thread: the worst case is the
 * one-shot speed, never a different answer.
 */
import { Worker } from 'node:worker_threads';
import type { GraphHit } from './graph-search.js';
import type { FtsOptions, ScoredRow } from './lookups.js';
import type { IndexHandle } from './handle.js';
import { indexGeneration, indexInstance } from './schema.js';

/** What a worker is asked to look up. */
export type OffloadTask =
  { task: 'fts'; match: string; limit: number; opts: FtsOptions } | { task: 'graph'; query: string; limit: number; nowMs: number };

/** Which index file (path and instance id) at which generation the caller reads. */
export type OffloadTarget = { file: string; instance: string; generation: number };

export type OffloadRequest = { id: number } & OffloadTarget & OffloadTask;

/** A thread's answer to a request, or its first message once its code is loaded (`ready`). */
export type OffloadReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string } | { ready: true };

/** Lookups of one index that may run off the calling thread (see IndexHandle.offload). */
export interface IndexOffload {
  fts(match: string, limit: number, opts?: FtsOptions): Promise<ScoredRow[]>;
  graph(query: string, limit: number, nowMs: number): Promise<GraphHit[]>;
}

/** Threads in the pool: a recall has three lookups to overlap (lexical, related words, graph). */
export const OFFLOAD_THREADS = 3;
/**
 * A lookup still running after this long has its thread replaced (and runs in the caller's thread
 * if its arm still waits): a query stuck on a slow disk must not keep a thread forever.
 */
export const LOOKUP_TIMEOUT_MS = 10_000;
/** Index files a thread keeps open at most (a server that served many KBs closes the least recently used). */
export const MAX_OPEN_FILES = 8;
/** Threads that die before they are ready, in a row, before the pool stops starting them (a missing or broken worker script). */
export const MAX_FAILED_STARTS = 3;

/** What the threads did so far (the server's status shows it: a refusal is a lookup run in the server's own thread). */
export interface OffloadStats {
  threads: number;
  /** Threads started and loaded (able to take a lookup now). */
  ready: number;
  answered: number;
  refused: number;
  lastRefusal: string | null;
}

interface Waiter {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

interface Slot {
  worker: Worker | null;
  /** The thread's code is loaded: it can take a lookup. */
  ready: boolean;
  /** The lookup in flight (a thread is given one at a time). */
  pending: Map<number, Waiter>;
}

export class IndexWorkers {
  private readonly slots: Slot[];
  private nextId = 1;
  private closed = false;
  private answered = 0;
  private failedStarts = 0;
  private refused = 0;
  private lastRefusal: string | null = null;

  /**
   * `script`: the built worker entry (index-offload-worker's bundle). Call start() to load the
   * threads ahead of the first recall; a lookup never waits for a thread to start.
   */
  constructor(
    private readonly script: string,
    size = OFFLOAD_THREADS,
    private readonly lookupTimeoutMs = LOOKUP_TIMEOUT_MS,
  ) {
    this.slots = Array.from({ length: size }, () => ({ worker: null, ready: false, pending: new Map() }));
  }

  /** Start every thread that is not running (they load in the background). */
  start(): void {
    for (const slot of this.slots) if (!slot.worker) this.spawn(slot);
  }

  /** The offload for one open index; each call reads the handle's current generation. */
  forIndex(h: IndexHandle): IndexOffload {
    // The file a connection has open never changes, nor does its instance id.
    const instance = indexInstance(h);
    const ask = <T>(task: OffloadTask): Promise<T> =>
      this.run({ ...task, file: h.file, instance, generation: indexGeneration(h) }) as Promise<T>;
    return {
      fts: (match, limit, opts = {}) => ask<ScoredRow[]>({ task: 'fts', match, limit, opts }),
      graph: (query, limit, nowMs) => ask<GraphHit[]>({ task: 'graph', query, limit, nowMs }),
    };
  }

  stats(): OffloadStats {
    return {
      threads: this.slots.length,
      ready: this.slots.filter((s) => s.worker && s.ready).length,
      answered: this.answered,
      refused: this.refused,
      lastRefusal: this.lastRefusal,
    };
  }

  /** Stop every thread; lookups in flight reject (their callers run them in-thread). */
  close(): void {
    this.closed = true;
    for (const slot of this.slots) this.stop(slot, new Error('index workers closed'));
  }

  private run(req: OffloadTarget & OffloadTask): Promise<unknown> {
    if (this.closed) return this.refuse(new Error('index workers closed'));
    if (this.failedStarts >= MAX_FAILED_STARTS)
      return this.refuse(new Error(`index workers disabled: ${this.lastRefusal ?? 'no thread started'}`));
    // Only a started, idle thread: a lookup queued behind a slow one would wait longer than running it here.
    const slot = this.slots.find((s) => s.worker && s.ready && s.pending.size === 0);
    if (!slot) {
      this.start();
      return this.refuse(new Error(this.slots.some((s) => s.ready) ? 'every index thread is busy' : 'index threads are starting'));
    }
    const worker = slot.worker!;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.stop(slot, new Error(`index lookup ran past ${this.lookupTimeoutMs} ms`)), this.lookupTimeoutMs);
      timer.unref();
      slot.pending.set(id, {
        resolve: (v) => {
          this.answered += 1;
          resolve(v);
        },
        reject: (e) => {
          this.noteRefusal(e);
          reject(e);
        },
        timer,
      });
      worker.postMessage({ ...req, id });
    });
  }

  private noteRefusal(err: Error): void {
    this.refused += 1;
    this.lastRefusal = err.message;
  }

  private refuse(err: Error): Promise<never> {
    this.noteRefusal(err);
    return Promise.reject(err);
  }

  private spawn(slot: Slot): void {
    if (this.closed || this.failedStarts >= MAX_FAILED_STARTS) return;
    let worker: Worker;
    try {
      worker = new Worker(this.script);
    } catch (err) {
      this.failedStarts += 1;
      this.lastRefusal = err instanceof Error ? err.message : String(err);
      return;
    }
    // Idle threads never keep the process alive (the server exits on its idle timeout).
    worker.unref();
    slot.worker = worker;
    slot.ready = false;
    worker.on('message', (reply: OffloadReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.failedStarts = 0;
        return;
      }
      const waiter = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      if (!waiter) return;
      clearTimeout(waiter.timer);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(reply.error));
    });
    // Only the slot's current thread may clear it: a stopped thread's late exit must not stop its successor.
    worker.on('error', (err) => slot.worker === worker && this.stop(slot, err));
    worker.on('exit', (code) => slot.worker === worker && this.stop(slot, new Error(`index worker exited with code ${code}`)));
  }

  /** Reject what the thread had in flight, end it and start a successor (unless closed or failing to start). */
  private stop(slot: Slot, err: Error): void {
    const worker = slot.worker;
    if (worker && !slot.ready && !this.closed) {
      this.failedStarts += 1;
      this.lastRefusal = err.message;
    }
    slot.worker = null;
    slot.ready = false;
    for (const waiter of slot.pending.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(err);
    }
    slot.pending.clear();
    if (worker) void worker.terminate();
    this.spawn(slot);
  }
}
