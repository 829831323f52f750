/**
 * One recall, composed from the stage operators (the table is in pipeline/recall/stages.ts):
 *
 *   persona? ─▶ cache? ─▶ arms (merged, per-arm timeouts) ─▶ floors ─▶ RRF ─▶ superseded filter
 *            ─▶ rerank + embed (forkJoin) ─▶ [store fetch] ─▶ relevance ─▶ boosts ─▶ quarantine
 *            ─▶ confidence ─▶ OOD gate ─▶ abstain ─▶ MMR / limit ─▶ token budget ─▶ outcome
 *
 * Lazy: nothing runs before subscribe. Never errors for runtime problems: every failure is a
 * degradation in the outcome. Effects (clock, arms, models, cache, ledger, scheduler) come from deps.
 */
import { defer, map, of, type Observable } from 'rxjs';
import { errorMessage } from '../../core/errors.js';
import { initialState, type RecallState } from '../../core/state.js';
import { contentTerms } from '../../core/terms.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import type { Degradation, RecallOutcome } from '../../core/types.js';
import type { Ledger } from '../../sources/ledger.js';
import { fetchedLimitFor } from './cache.js';
import { inKbYears } from './date-phrase.js';
import { personaLookup } from './persona.js';
import type { RecallDeps, RecallRequest } from './request.js';
import { recallStages } from './stages.js';
import { traceResult } from './trace.js';
import { foldStages } from './stage-table.js';

export type { ArmPlan, RecallDeps, RecallMode, RecallRequest } from './request.js';
export { datePhraseWords, inKbYears, withoutDatePhrase } from './date-phrase.js';
export { RERANK_WINDOW } from '../../operators/rerank-top.js';

/** What the recall returns, built from the final state. */
function toOutcome(req: RecallRequest, state: RecallState, temporal: TemporalConstraint | null, ms: number): RecallOutcome {
  return {
    query: req.query,
    mode: req.mode,
    results: state.selected,
    floor: req.floor,
    abstained: state.abstained,
    // Weak matches fill what the limit leaves, after the results.
    weak: state.weak.slice(0, Math.max(0, req.limit - state.selected.length)),
    ranked: state.scored,
    oodGated: state.oodGated,
    coverage: state.coverage,
    temporal,
    cacheTier: state.cacheTier,
    arms: state.arms,
    degraded: state.degraded,
    drops: state.drops,
    persona: null,
    notice: null,
    ms,
  };
}

/** reflect.db opened at most once per recall, on first use; an open failure becomes a degradation. */
function onceLedger(open: () => Ledger | null, early: Degradation[]): () => Ledger | null {
  let opened = false;
  let ledger: Ledger | null = null;
  return () => {
    if (!opened) {
      opened = true;
      try {
        ledger = open();
      } catch (err) {
        early.push({ stage: 'ledger', reason: 'error', message: errorMessage(err) });
      }
    }
    return ledger;
  };
}

/** The cached fetch of this request laid over the starting state, or null on a miss or a failed read. */
function cachedState(req: RecallRequest, deps: RecallDeps, base: RecallState, early: Degradation[]): RecallState | null {
  if (req.noCache) return null;
  try {
    const hit = deps.cache.read();
    return hit
      ? {
          ...base,
          arms: hit.arms,
          candidates: hit.candidates,
          retired: hit.retired,
          ce: hit.ce,
          embeddings: hit.embeddings,
          degraded: hit.degraded,
          cacheTier: hit.tier,
        }
      : null;
  } catch (err) {
    early.push({ stage: 'cache', reason: 'error', message: `cache read failed: ${errorMessage(err)}` });
    return null;
  }
}

export function recall$(req: RecallRequest, deps: RecallDeps): Observable<RecallOutcome> {
  return defer(() => {
    const t0 = deps.now();
    const early: Degradation[] = deps.engineFallbacks.map((message) => ({ stage: 'engine', reason: 'unavailable' as const, message }));
    const ledger = onceLedger(deps.ledger, early);

    // Persona short-circuit (only consults reflect.db when the query is open-domain).
    const project = deps.scope.kind === 'branch-shard' || deps.scope.kind === 'project-shard' ? deps.scope.project : null;
    const persona = personaLookup(req.query, () => project ?? deps.currentProject(), ledger);
    if (persona) return of({ ...toOutcome(req, initialState(req.query, []), null, deps.now() - t0), persona });

    const temporal = deps.config.temporalEnabled ? inKbYears(deps.extractTemporal(req.query), deps.hasNotesIn) : null;
    const base = initialState(req.query, contentTerms(req.query));
    const start = cachedState(req, deps, base, early) ?? base;
    const run = {
      req,
      deps,
      temporal,
      fetchedLimit: fetchedLimitFor(req.limit),
      project,
      retired: deps.retired(ledger),
      early,
    };
    const elapsed = (): number => deps.now() - t0;
    return of(start).pipe(
      foldStages(recallStages(run), deps.trace, elapsed),
      map((s) => toOutcome(req, s, temporal, elapsed())),
      traceResult(deps.trace, elapsed),
    );
  });
}
