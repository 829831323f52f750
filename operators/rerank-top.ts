/**
 * Cross-encoder scores and embeddings for the top RERANK_WINDOW fused candidates, fetched
 * concurrently with forkJoin (added latency = the slower of the two).
 *
 * Each side degrades on its own to "no scores" / "no vectors" — on `available: false`, error,
 * timeout or an empty answer — and records why. A side switched off (RECALL_CROSS_ENCODER=0,
 * MMR off) is not called. No candidates → nothing is called.
 */
import {
  catchError,
  defaultIfEmpty,
  forkJoin,
  map,
  of,
  switchMap,
  timeout,
  TimeoutError,
  asyncScheduler,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import { type ModelCandidate, type ModelClient } from '../core/ports.js';
import { modelText } from '../core/note/index.js';
import { errorMessage } from '../core/errors.js';
import type { RecallState } from '../core/state.js';
import type { Degradation, Embeddings } from '../core/types.js';

/** Candidates rescored by the cross-encoder and embedded for MMR: the reference window, wide enough for a limit of 10 with room for filters, small enough for a hook budget. */
export const RERANK_WINDOW = 20;
/**
 * Without a cross-encoder, the fused candidates scored on their own evidence and lexical relevance
 * (the rest sort below them): wider than the model window because lexical scoring costs little and
 * the lexical arm's episode context brings in more half-matching candidates worth weighing.
 * LoCoMo dev, evidence recall@10 with episode context: window 20 / 30 = 0.698 / 0.689 on the mean,
 * multi-hop 0.350 / 0.367, inference 0.269 / 0.275.
 */
export const LEXICAL_WINDOW = 30;

/**
 * Candidates that can rank above anything (later ones score 1e-6): the cross-encoder's window when
 * it scored, else the lexical one; or the limit when that is larger.
 */
export function scoringWindow(ce: ReadonlyMap<string, number> | null, limit = 0): number {
  return Math.max(ce ? RERANK_WINDOW : LEXICAL_WINDOW, limit);
}

export interface RerankTopOptions {
  client: ModelClient;
  crossEncoder: boolean;
  embeddings: boolean;
  /** Budget of each model call; a function is evaluated when the stage starts (deadline-aware). */
  timeoutMs: number | (() => number);
  scheduler?: SchedulerLike;
  /** Vectors already stored in the index for these note paths (not recomputed). */
  storedVectors?: (paths: string[]) => Map<string, number[]>;
}

type Side<T> = { value: T | null; degraded: Degradation | null };

function guarded<T>(
  stage: string,
  source: Observable<T | { error: string }>,
  timeoutMs: number,
  scheduler: SchedulerLike,
): Observable<Side<T>> {
  const none = (reason: Degradation['reason'], message: string): Side<T> => ({ value: null, degraded: { stage, reason, message } });
  return source.pipe(
    timeout({ first: timeoutMs, meta: { stage }, scheduler }),
    map((r): Side<T> =>
      'error' in (r as object) ? none('unavailable', (r as { error: string }).error) : { value: r as T, degraded: null },
    ),
    catchError((err: unknown) =>
      of(err instanceof TimeoutError ? none('timeout', `no answer within ${timeoutMs} ms`) : none('error', errorMessage(err))),
    ),
    defaultIfEmpty(none('error', 'no answer')),
  );
}

/** Embeddings for the window: stored note vectors are reused, only the query and the rest are embedded. */
function embedWindow(
  state: RecallState,
  items: ModelCandidate[],
  opts: RerankTopOptions,
): Observable<{ available: true; query: number[]; docs: Map<string, number[]> } | { error: string }> {
  const byKey = new Map(state.candidates.map((c) => [c.note.key, c.note.path]));
  const stored = opts.storedVectors?.(items.map((i) => byKey.get(i.id)!)) ?? new Map<string, number[]>();
  const known = new Map<string, number[]>();
  for (const i of items) {
    const v = stored.get(byKey.get(i.id)!);
    if (v) known.set(i.id, v);
  }
  const missing = items.filter((i) => !known.has(i.id));
  return opts.client
    .embed(state.query, missing)
    .pipe(
      map((r) => (r.available ? { available: true as const, query: r.query, docs: new Map([...known, ...r.docs]) } : { error: r.error })),
    );
}

export function rerankTop(opts: RerankTopOptions): OperatorFunction<RecallState, RecallState> {
  const scheduler = opts.scheduler ?? asyncScheduler;
  return switchMap((state) => {
    const window = state.candidates.slice(0, RERANK_WINDOW);
    if (window.length === 0 || (!opts.crossEncoder && !opts.embeddings)) return of(state);
    const items: ModelCandidate[] = window.map((c) => ({ id: c.note.key, text: modelText(c.note) }));
    const skip = <T>(): Observable<Side<T>> => of({ value: null, degraded: null });
    const budget = typeof opts.timeoutMs === 'function' ? opts.timeoutMs() : opts.timeoutMs;
    return forkJoin({
      ce: opts.crossEncoder
        ? guarded<{ available: true; scores: Map<string, number> }>(
            'rerank',
            opts.client.rerank(state.query, items).pipe(map((r) => (r.available ? r : { error: r.error }))),
            budget,
            scheduler,
          )
        : skip<{ available: true; scores: Map<string, number> }>(),
      emb: opts.embeddings
        ? guarded<{ available: true; query: number[]; docs: Map<string, number[]> }>(
            'embed',
            embedWindow(state, items, opts),
            budget,
            scheduler,
          )
        : skip<{ available: true; query: number[]; docs: Map<string, number[]> }>(),
    }).pipe(
      map(({ ce, emb }): RecallState => {
        const embeddings: Embeddings | null = emb.value ? { query: emb.value.query, docs: emb.value.docs } : null;
        return {
          ...state,
          ce: ce.value ? ce.value.scores : null,
          embeddings,
          degraded: [...state.degraded, ...[ce.degraded, emb.degraded].filter((d): d is Degradation => d !== null)],
        };
      }),
    );
  });
}
