/**
 * Runs the candidate arms concurrently (at most `concurrency` at once), each under its own timeout.
 *
 * - A timeout, error or unavailable engine becomes an outcome with no hits and a status; it never
 *   fails the merge (timeout and catchError sit on each inner stream, not on the merged one).
 * - A timed-out arm is unsubscribed, which tears down whatever it started.
 * - Disabled arms are reported as "disabled" without being subscribed.
 * - Output: one outcome per spec, in spec order (vector, bm25, graph, temporal), whatever finished first.
 */
import {
  asyncScheduler,
  catchError,
  defaultIfEmpty,
  defer,
  from,
  map,
  mergeMap,
  of,
  switchMap,
  take,
  timeout,
  TimeoutError,
  toArray,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import { ArmUnavailableError, errorMessage } from '../core/errors.js';
import type { ArmHit, ArmName, ArmOutcome } from '../core/types.js';

export interface ArmSpec {
  arm: ArmName;
  /** Lazy source; subscribed only when the arm runs. */
  source: Observable<ArmHit[]>;
  timeoutMs: number;
  /** When set, the arm is not run and is reported as disabled with this reason. */
  disabled?: string;
}

export interface RunArmsOptions {
  /** Arms in flight at once (default ARM_CONCURRENCY). */
  concurrency?: number;
  scheduler?: SchedulerLike;
  /** Rethrow arm errors instead of degrading (for tests that must see a failure). */
  strict?: boolean;
}

/** Arms in flight at once: the four standard arms all run together; an extra (team) arm waits for a free slot. */
export const ARM_CONCURRENCY = 4;

export function runArm(spec: ArmSpec, scheduler: SchedulerLike, strict = false): Observable<ArmOutcome> {
  if (spec.disabled) return of({ arm: spec.arm, status: 'disabled', hits: [], ms: 0, message: spec.disabled });
  return defer(() => {
    const t0 = scheduler.now();
    const elapsed = (): number => scheduler.now() - t0;
    return spec.source.pipe(
      take(1),
      timeout({ first: spec.timeoutMs, meta: { arm: spec.arm }, scheduler }),
      defaultIfEmpty<ArmHit[], ArmHit[]>([]),
      map((hits): ArmOutcome => ({ arm: spec.arm, status: 'ok', hits, ms: elapsed() })),
      catchError((err: unknown) => {
        if (strict && !(err instanceof TimeoutError) && !(err instanceof ArmUnavailableError)) throw err;
        return of<ArmOutcome>({
          arm: spec.arm,
          status: err instanceof TimeoutError ? 'timeout' : err instanceof ArmUnavailableError ? 'unavailable' : 'error',
          hits: [],
          ms: elapsed(),
          message: err instanceof TimeoutError ? `no answer within ${spec.timeoutMs} ms` : errorMessage(err),
        });
      }),
    );
  });
}

export function runArms(opts: RunArmsOptions = {}): OperatorFunction<ArmSpec[], ArmOutcome[]> {
  const scheduler = opts.scheduler ?? asyncScheduler;
  const concurrency = opts.concurrency ?? ARM_CONCURRENCY;
  return switchMap((specs) =>
    from(specs).pipe(
      mergeMap((spec) => runArm(spec, scheduler, opts.strict), concurrency),
      toArray(),
      map((outcomes) => specs.map((s) => outcomes.find((o) => o.arm === s.arm)!)),
    ),
  );
}
