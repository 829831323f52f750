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
 * generation the caller reads, and a worker that cannot see that generation refuses (see
 * index-offload-worker.ts). A refused, failed or crashed lookup rejects its promise; the arms then run
 * it in the calling thread, so the worst case is the one-shot speed, never a different answer.
 */
import { Worker } from 'node:worker_threads';
import type { GraphHit } from './graph-arm.js';
import type { ScoredRow } from './index-lookups.js';
import { indexGeneration, type IndexHandle } from './index-store.js';

/** What a worker is asked to look up. */
export type OffloadTask = { task: 'fts'; match: string; limit: number } | { task: 'graph'; query: string; limit: number; nowMs: number };

export type OffloadRequest = { id: number; file: string; generation: number } & OffloadTask;

export type OffloadReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** Lookups of one index that may run off the calling thread (see IndexHandle.offload). */
export interface IndexOffload {
  fts(match: string, limit: number): Promise<ScoredRow[]>;
  graph(query: string, limit: number, nowMs: number): Promise<GraphHit[]>;
}

/** Threads in the pool: a recall has three lookups to overlap (lexical, related words, graph). */
export const OFFLOAD_THREADS = 3;
/**
 * Lookups queued on the least busy thread before the next one runs in the caller's thread instead:
 * threads stuck on slow queries (the arm timed out, the query goes on) must not hold up later recalls.
 */
export const MAX_QUEUED = 2;
/** Index files a thread keeps open at most (a server that served many KBs closes the least recently used). */
export const MAX_OPEN_FILES = 8;
/** Threads that die before answering anything, in a row, before the pool stops trying (a missing or broken worker script). */
export const MAX_FAILED_STARTS = 3;

/** What the threads did so far (the server's status shows it: a refusal is a lookup run in the server's own thread). */
export interface OffloadStats {
  threads: number;
  answered: number;
  refused: number;
  lastRefusal: string | null;
}

interface Slot {
  worker: Worker | null;
  /** The current thread has answered at least once. */
  answeredOnce: boolean;
  pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
}

export class IndexWorkers {
  private readonly slots: Slot[];
  private nextId = 1;
  private closed = false;
  private answered = 0;
  private failedStarts = 0;
  private refused = 0;
  private lastRefusal: string | null = null;

  /** `script`: the built worker entry (index-offload-worker's bundle). Threads start on first use. */
  constructor(
    private readonly script: string,
    size = OFFLOAD_THREADS,
  ) {
    this.slots = Array.from({ length: size }, () => ({ worker: null, answeredOnce: false, pending: new Map() }));
  }

  /** The offload for one open index; each call reads the handle's current generation. */
  forIndex(h: IndexHandle): IndexOffload {
    const ask = <T>(task: OffloadTask): Promise<T> => this.run({ ...task, file: h.file, generation: indexGeneration(h) }) as Promise<T>;
    return {
      fts: (match, limit) => ask<ScoredRow[]>({ task: 'fts', match, limit }),
      graph: (query, limit, nowMs) => ask<GraphHit[]>({ task: 'graph', query, limit, nowMs }),
    };
  }

  stats(): OffloadStats {
    return { threads: this.slots.length, answered: this.answered, refused: this.refused, lastRefusal: this.lastRefusal };
  }

  /** Stop every thread; lookups in flight reject (their callers run them in-thread). */
  close(): void {
    this.closed = true;
    for (const slot of this.slots) this.stop(slot, new Error('index workers closed'));
  }

  private run(req: OffloadTask & { file: string; generation: number }): Promise<unknown> {
    if (this.closed) return this.refuse(new Error('index workers closed'));
    if (this.failedStarts >= MAX_FAILED_STARTS)
      return this.refuse(new Error(`index workers disabled: ${this.lastRefusal ?? 'no thread started'}`));
    // The least busy thread: a lookup stuck on a slow disk does not hold up the ones behind it.
    const slot = this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    if (slot.pending.size >= MAX_QUEUED) return this.refuse(new Error('every index thread is busy'));
    let worker: Worker;
    try {
      worker = slot.worker ?? this.start(slot);
    } catch (err) {
      return this.refuse(err instanceof Error ? err : new Error(String(err)));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, {
        resolve: (v) => {
          this.answered += 1;
          resolve(v);
        },
        reject: (e) => {
          this.noteRefusal(e);
          reject(e);
        },
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

  private start(slot: Slot): Worker {
    const worker = new Worker(this.script);
    // Idle threads never keep the process alive (the server exits on its idle timeout).
    worker.unref();
    worker.on('message', (reply: OffloadReply) => {
      slot.answeredOnce = true;
      this.failedStarts = 0;
      const waiter = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      if (reply.ok) waiter?.resolve(reply.value);
      else waiter?.reject(new Error(reply.error));
    });
    // Only the slot's current thread may clear it: a stopped thread's late exit must not stop its successor.
    worker.on('error', (err) => slot.worker === worker && this.stop(slot, err));
    worker.on('exit', (code) => slot.worker === worker && this.stop(slot, new Error(`index worker exited with code ${code}`)));
    slot.worker = worker;
    return worker;
  }

  /** Reject what the thread had in flight and forget it (the next lookup starts a new one). */
  private stop(slot: Slot, err: Error): void {
    const worker = slot.worker;
    if (worker && !slot.answeredOnce && !this.closed) this.failedStarts += 1;
    slot.worker = null;
    slot.answeredOnce = false;
    for (const waiter of slot.pending.values()) waiter.reject(err);
    slot.pending.clear();
    if (worker) void worker.terminate();
  }
}
