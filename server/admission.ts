/**
 * Admission of requests into the recall server: at most `limit` run at once, the rest wait in
 * arrival order, each with the deadline its client sent. Running every request the moment it
 * arrives would let 200 concurrent hooks share two cores, so every one of them would finish late
 * (and the event loop, busy with all of them, would be too slow even to accept new connections).
 *
 * A waiting request whose deadline comes too near to still run it (its expected run time, learnt
 * from the last runs of that kind, plus a margin) is answered at once with its `tooLate` answer: a
 * hook then gets an empty but valid envelope before its deadline instead of a full one after it. A
 * request whose expected run no longer fits when its turn comes is answered the same way. Requests
 * without a deadline (a plain `recall QUERY` from a terminal) just wait their turn. More than
 * `maxQueued` waiting: the newcomer is answered `tooLate` at once.
 */

export interface AdmissionOptions {
  /** Requests run at once (RECALL_SERVER_CONCURRENCY, default: the number of cores, at least 2). */
  limit: number;
  /** Requests waiting at most; past it a newcomer is answered at once. */
  maxQueued: number;
  now?: () => number;
}

export interface Job<T> {
  /** Kind of request (the hook's name, `cli`): run times are learnt per kind. */
  kind: string;
  /** Epoch ms by which the answer must be written; Infinity for none. */
  deadlineMs: number;
  run: () => Promise<T>;
  /** The answer when the request cannot run in time; `why` says so in words. */
  tooLate: (why: string) => T;
}

/** First guess of a run's time before any was measured (a warm hook takes 50–300 ms). */
const FIRST_ESTIMATE_MS = 300;
/** Time kept between the expected end of a run and the deadline: writing the answer, a slow turn. */
const MARGIN_MS = 250;
/** Weight of the newest run in the running estimate (an exponential moving average). */
const EWMA_WEIGHT = 0.3;

interface Waiting {
  job: Job<unknown>;
  resolve: (v: unknown) => void;
  timer: NodeJS.Timeout | null;
  queuedAt: number;
}

export class Admission {
  private running = 0;
  private readonly queue: Waiting[] = [];
  private readonly estimates = new Map<string, number>();
  private readonly now: () => number;
  /** Requests answered `tooLate` so far (for `recall daemon status`). */
  shed = 0;

  constructor(private readonly opts: AdmissionOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Requests running and waiting now. */
  load(): { running: number; queued: number; shed: number } {
    return { running: this.running, queued: this.queue.length, shed: this.shed };
  }

  /** Expected run time of a kind of request, in ms. */
  estimate(kind: string): number {
    return this.estimates.get(kind) ?? FIRST_ESTIMATE_MS;
  }

  /** Latest epoch ms at which a job may still start. */
  private startBy(job: Job<unknown>): number {
    return job.deadlineMs - this.estimate(job.kind) - MARGIN_MS;
  }

  submit<T>(job: Job<T>): Promise<T> {
    const j = job as Job<unknown>;
    if (this.running < this.opts.limit && this.queue.length === 0) return this.start(j) as Promise<T>;
    if (this.queue.length >= this.opts.maxQueued) {
      this.shed += 1;
      return Promise.resolve(job.tooLate(`the recall server is full (${this.running} running, ${this.queue.length} waiting)`));
    }
    return new Promise<T>((resolve) => {
      const w: Waiting = { job: j, resolve: resolve as (v: unknown) => void, timer: null, queuedAt: this.now() };
      if (Number.isFinite(j.deadlineMs)) {
        w.timer = setTimeout(() => this.expire(w), Math.max(0, this.startBy(j) - this.now()));
        w.timer.unref();
      }
      this.queue.push(w);
    });
  }

  private expire(w: Waiting): void {
    const i = this.queue.indexOf(w);
    if (i < 0) return;
    this.queue.splice(i, 1);
    this.shed += 1;
    w.resolve(w.job.tooLate(this.lateWhy(w, i)));
  }

  private lateWhy(w: Waiting, ahead: number): string {
    return (
      `the recall server was busy (${this.running} running, ${ahead} waiting ahead); after ${Math.round(this.now() - w.queuedAt)} ms ` +
      `in its queue a run (about ${Math.round(this.estimate(w.job.kind))} ms) no longer fitted before the deadline`
    );
  }

  private start(job: Job<unknown>): Promise<unknown> {
    this.running += 1;
    const t0 = this.now();
    const done = (): void => {
      const ms = this.now() - t0;
      const prev = this.estimates.get(job.kind);
      this.estimates.set(job.kind, prev === undefined ? ms : prev + EWMA_WEIGHT * (ms - prev));
      this.running -= 1;
      this.next();
    };
    let p: Promise<unknown>;
    try {
      p = job.run();
    } catch (err) {
      p = Promise.reject(err);
    }
    return p.finally(done);
  }

  private next(): void {
    while (this.running < this.opts.limit && this.queue.length > 0) {
      const w = this.queue.shift()!;
      if (w.timer) clearTimeout(w.timer);
      if (this.now() > this.startBy(w.job)) {
        this.shed += 1;
        w.resolve(w.job.tooLate(this.lateWhy(w, 0)));
        continue;
      }
      this.start(w.job).then(w.resolve, (err: unknown) => w.resolve(Promise.reject(err)));
    }
  }
}
