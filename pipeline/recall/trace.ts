/**
 * What each stage of a recall reports to `recall trace` and `recall explain`: one event body per
 * stage, built from the state the stage emitted (the time stamp is added by the trace tap).
 */
import { tap, type MonoTypeOperatorFunction } from 'rxjs';
import { toNaiveIso } from '../../core/dates.js';
import type { RecallState, WeighedTerm } from '../../core/state.js';
import type { NoteTerms } from '../../core/stems.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import type { ArmName, RecallOutcome } from '../../core/types.js';
import { noteTermsIn } from '../../operators/estimate-relevance.js';
import { containsTerm, contributions } from '../../operators/math/index.js';
import { scoringWindow } from '../../operators/rerank-top.js';
import { dropsOf, type TraceEventBody, type TraceSink } from '../../operators/trace-stage.js';

type Describe = (st: RecallState) => TraceEventBody | TraceEventBody[];

/** Query words a note (its stems) lacks, most informative first (for trace and explain only). */
export function missingTerms(terms: readonly WeighedTerm[], stems: NoteTerms): string[] {
  return terms
    .filter((t) => !containsTerm(stems, t.stem, t.notVia))
    .sort((a, b) => b.info - a.info)
    .map((t) => t.word);
}

const kept = (st: RecallState): string[] => st.selected.map((c) => c.note.key);

export const startEvent =
  (temporal: TemporalConstraint | null): Describe =>
  (st) => ({
    stage: 'start',
    query: st.query,
    terms: st.terms,
    temporal: temporal ? { start: toNaiveIso(temporal.start), end: toNaiveIso(temporal.end), matched: temporal.matchedText } : null,
  });

export const cacheEvent: Describe = (st) => ({ stage: 'cache', tier: st.cacheTier });

/** One event per arm, in the arms' fixed order, each with its own wall time. */
export const armEvents: Describe = (st) =>
  st.arms.map((o) => ({
    stage: 'arm',
    arm: o.arm,
    status: o.status,
    ms: o.ms,
    ...(o.message ? { message: o.message } : {}),
    hits: o.hits.map((h, i) => ({ rank: i + 1, id: h.note.key, score: h.score, ...(h.context ? { context: h.context } : {}) })),
  }));

export const floorsEvent: Describe = (st) => ({ stage: 'floors', dropped: dropsOf(st, 'arm-floor') });

export const fuseEvent: Describe = (st) => ({
  stage: 'fuse',
  candidates: st.candidates.map((c, i) => ({
    rank: i + 1,
    id: c.note.key,
    rrf: c.rrf,
    evidence: c.evidence,
    arms: Object.keys(c.ranks) as ArmName[],
  })),
});

export const supersededEvent: Describe = (st) => ({ stage: 'superseded', dropped: dropsOf(st, 'superseded') });

export const rerankEvent: Describe = (st) => ({
  stage: 'rerank',
  crossEncoder: st.ce !== null,
  embeddings: st.embeddings !== null,
  degraded: st.degraded.filter((d) => d.stage === 'rerank' || d.stage === 'embed').map((d) => `${d.stage}: ${d.reason}: ${d.message}`),
});

export const relevanceEvent: Describe = (st) => ({
  stage: 'relevance',
  terms: st.weighed.map((t) => ({ word: t.word, info: t.info, df: t.df, proper: t.proper, specific: t.specific })),
  candidates: st.candidates.slice(0, scoringWindow(st.ce)).map((c) => {
    const e = st.relevance.get(c.note.key);
    return {
      id: c.note.key,
      relevance: e?.p ?? 0,
      source: e?.source ?? 'lexical',
      features: e?.features ?? null,
      contributions: e?.features ? contributions(e.features) : null,
      missing: missingTerms(st.weighed, noteTermsIn(st, c.note)),
    };
  }),
});

export const scoreEvent: Describe = (st) => ({
  stage: 'score',
  candidates: st.scored.map((c, i) => ({
    rank: i + 1,
    id: c.note.key,
    score: c.score,
    base: c.base,
    relevance: c.relevance,
    factor: c.relevanceFactor,
    title: c.titleFactor,
    ce: c.ce,
    boosts: c.boosts,
  })),
});

/** A filter's event: what it kept and what it dropped. */
export const filterEvent =
  (stage: 'quarantine' | 'confidence' | 'budget'): Describe =>
  (st) => ({ stage, kept: kept(st), dropped: dropsOf(st, stage) });

export const oodGateEvent =
  (minOverlap: number): Describe =>
  (st) => ({ stage: 'ood-gate', coverage: st.coverage, gated: st.oodGated, minOverlap, kept: kept(st) });

export const abstainEvent =
  (floor: number): Describe =>
  (st) => ({
    stage: 'abstain',
    floor,
    kept: kept(st),
    weak: st.weak.map((c) => c.note.key),
    dropped: dropsOf(st, 'relevance-floor'),
    abstained: st.abstained,
  });

export const mmrEvent: Describe = (st) => ({ stage: 'mmr', kept: kept(st), dropped: [...dropsOf(st, 'mmr'), ...dropsOf(st, 'limit')] });

/** The final event: what the recall returns. A throwing sink never changes the result. */
export function traceResult(sink: TraceSink | undefined, now: () => number): MonoTypeOperatorFunction<RecallOutcome> {
  if (!sink) return (o$) => o$;
  if (sink.timesOnly)
    return tap(() => {
      try {
        sink({ stage: 'time', of: 'result', t: now() });
      } catch {
        /* tracing never changes the result */
      }
    });
  return tap((o) => {
    try {
      sink({
        stage: 'result',
        ids: o.results.map((c) => c.note.key),
        scores: o.results.map((c) => c.score),
        cacheTier: o.cacheTier,
        degraded: o.degraded.map((d) => `${d.stage}:${d.reason}`),
        ms: o.ms,
        t: now(),
      });
    } catch {
      /* tracing never changes the result */
    }
  });
}
