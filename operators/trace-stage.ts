/**
 * Tracing: a tap after a stage that describes what the stage did, built from the state the stage
 * emitted. The same operators produce a traced and an untraced recall; without a sink the tap is a
 * no-op. A throwing sink never breaks the recall.
 */
import { tap, type MonoTypeOperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import type { ArmName, ArmOutcome, BoostName, Drop, RelevanceSource } from '../core/types.js';
import type { ModelFeature, RelevanceFeatures } from './math/index.js';

export type TraceEvent =
  | { stage: 'start'; query: string; terms: string[]; temporal: { start: string; end: string; matched: string } | null; t: number }
  | { stage: 'cache'; tier: 'exact' | 'fuzzy' | null; t: number }
  | {
      stage: 'arm';
      arm: ArmName;
      status: ArmOutcome['status'];
      ms: number;
      message?: string;
      /** context: the part of the score lent by the note's episode (lexical arm). */
      hits: { rank: number; id: string; score: number; context?: number }[];
      t: number;
    }
  | { stage: 'floors'; dropped: Drop[]; t: number }
  | { stage: 'fuse'; candidates: { rank: number; id: string; rrf: number; evidence: number; arms: ArmName[] }[]; t: number }
  | { stage: 'superseded'; dropped: Drop[]; t: number }
  | { stage: 'rerank'; crossEncoder: boolean; embeddings: boolean; degraded: string[]; t: number }
  | {
      stage: 'relevance';
      /** The query's terms with their weights: everyday-English information and KB document frequency. */
      terms: { word: string; info: number; df: number; proper: boolean; specific: boolean }[];
      candidates: {
        id: string;
        relevance: number;
        source: RelevanceSource;
        features: RelevanceFeatures | null;
        contributions: Record<ModelFeature, number> | null;
        /** Query words the note does not contain, most informative first. */
        missing: string[];
      }[];
      t: number;
    }
  | { stage: 'abstain'; floor: number; kept: string[]; weak: string[]; dropped: Drop[]; abstained: string | null; t: number }
  | {
      stage: 'score';
      candidates: {
        rank: number;
        id: string;
        score: number;
        base: number;
        relevance: number;
        /** What the score multiplied for relevance (1 with a cross-encoder; labels counted; see ScoredCandidate). */
        factor: number;
        /** What the score multiplied for the title repeating the query's phrases (absent in older traces = 1). */
        title?: number;
        ce: number | null;
        boosts: Record<BoostName, number>;
      }[];
      t: number;
    }
  | { stage: 'quarantine' | 'confidence' | 'mmr' | 'budget'; kept: string[]; dropped: Drop[]; t: number }
  | { stage: 'ood-gate'; coverage: number | null; gated: boolean; minOverlap: number; kept: string[]; t: number }
  | { stage: 'result'; ids: string[]; scores: number[]; cacheTier: 'exact' | 'fuzzy' | null; degraded: string[]; ms: number; t: number }
  /**
   * With several KBs read together, the start of one KB's events (`kb` 1..`of`, its folder and a
   * label), and before the fused result `kb` 0 with root '' (pipeline/session/multi-kb.ts).
   */
  | { stage: 'kb'; kb: number; of: number; root: string; label: string; t: number }
  /**
   * What a sink that times the stages only (TraceSink.timesOnly) gets in place of a stage's event:
   * which event it stands for, and for an arm the arm and its own wall time.
   */
  | { stage: 'time'; of: TimedStage; arm?: ArmName; ms?: number; t: number };

/** The events a stage (or the end of a recall) reports, by their `stage`. */
export type TimedStage =
  | 'start'
  | 'cache'
  | 'arm'
  | 'floors'
  | 'fuse'
  | 'superseded'
  | 'rerank'
  | 'relevance'
  | 'score'
  | 'quarantine'
  | 'confidence'
  | 'ood-gate'
  | 'abstain'
  | 'mmr'
  | 'budget'
  | 'result';

/**
 * Where a recall's events go. A sink with `timesOnly` wants to know only when each stage ended (a
 * hook's stage clock): it gets one `time` event per stage event instead, and no event body is built
 * (the relevance event alone reads every candidate's words again to list what each lacks).
 */
export type TraceSink = ((event: TraceEvent) => void) & { readonly timesOnly?: boolean };

/** Distributes the Omit over the union, so each stage's own fields stay checked. */
export type TraceEventBody = TraceEvent extends infer E ? (E extends TraceEvent ? Omit<E, 't'> : never) : never;

/** Runs `f`, ignoring what it throws: a tracing problem (a describe or sink that throws) must not change the recall. */
function quietly(f: () => void): void {
  try {
    f();
  } catch {
    /* ignored on purpose */
  }
}

/**
 * A tap that reports what the stage before it did: `describe` builds the event body (or several, or
 * none) from the state the stage emitted; a sink that only times the stages gets the `time` event of
 * `event` instead (one per arm for the arms), and needs no `describe`. Without a sink it is no
 * operator at all.
 */
export function traceStage(
  sink: TraceSink | undefined,
  now: () => number,
  describe: ((s: RecallState) => TraceEventBody | readonly TraceEventBody[] | null) | undefined,
  event: TimedStage,
): MonoTypeOperatorFunction<RecallState> {
  if (!sink || (!describe && !sink.timesOnly)) return (source) => source;
  if (sink.timesOnly)
    return tap((state) =>
      quietly(() => {
        if (event !== 'arm') return sink({ stage: 'time', of: event, t: now() });
        for (const o of state.arms) sink({ stage: 'time', of: 'arm', arm: o.arm, ms: o.ms, t: now() });
      }),
    );
  return tap((state) =>
    quietly(() => {
      const ev = describe?.(state) ?? null;
      const events = ev === null ? [] : Array.isArray(ev) ? ev : [ev as TraceEventBody];
      for (const e of events) quietly(() => sink({ ...e, t: now() } as TraceEvent));
    }),
  );
}

/** Drops recorded by one stage (the drops list only grows, so new entries are the stage's). */
export function dropsOf(state: RecallState, stage: string): Drop[] {
  return state.drops.filter((d) => d.stage === stage);
}
