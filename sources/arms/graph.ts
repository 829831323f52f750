/**
 * Embedded graph arm: notes one entity hop away from what the query names (the search itself:
 * sources/index/graph-search.ts). No entity matched → no hits. Lazy: nothing runs before subscribe.
 */
import { catchError, defer, from, of, type Observable } from 'rxjs';
import { type IndexHandle, graphSearch } from '../index/index.js';
import type { ArmHit } from '../../core/types.js';

/** On the index's worker threads when it has them (in this thread if they fail), else here. */
export function graphArm(query: string, limit: number, index: IndexHandle, nowMs: number): Observable<ArmHit[]> {
  const here = defer(() => of(graphSearch(index, query, limit, nowMs)));
  const offload = index.offload;
  return offload ? defer(() => from(offload.graph(query, limit, nowMs))).pipe(catchError(() => here)) : here;
}
