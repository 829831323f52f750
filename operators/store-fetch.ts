/**
 * The cache sink of a recall: after the fetch (arms, fusion, filters, model scores) it stores the
 * fetch through the cache port, so the next recall of the same query skips the arms and models.
 *
 * - A fetch that lost an arm to a timeout or an error is not stored: the next call retries it.
 * - A write failure never fails the recall: it is recorded as a `cache` degradation.
 * - The state passes through unchanged otherwise.
 */
import { catchError, concatMap, defer, of, type MonoTypeOperatorFunction } from 'rxjs';
import { errorMessage } from '../core/errors.js';
import type { CachePort } from '../core/ports.js';
import type { RecallState } from '../core/state.js';

export function storeFetch(cache: CachePort): MonoTypeOperatorFunction<RecallState> {
  return concatMap((state) => {
    const transient = state.arms.some((a) => a.status === 'timeout' || a.status === 'error');
    if (transient) return of(state);
    return defer(() => {
      cache.write(state);
      return of(state);
    }).pipe(
      catchError((err: unknown) =>
        of<RecallState>({
          ...state,
          degraded: [...state.degraded, { stage: 'cache', reason: 'error', message: `cache write failed: ${errorMessage(err)}` }],
        }),
      ),
    );
  });
}
