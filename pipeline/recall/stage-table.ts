/**
 * A recall as a table of stages folded into one operator. Each row names a stage, its operator and
 * the trace event that reports what it did; the fold puts a trace tap after every operator (no tap
 * at all without a trace sink), so a traced and an untraced recall run the same operators.
 */
import { concatMap, identity, of, type MonoTypeOperatorFunction } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { traceStage, type TimedStage, type TraceEventBody, type TraceSink } from '../../operators/trace-stage.js';

export interface Stage {
  /** What the stage does, for a reader of the table. */
  name: string;
  /** The operator; absent = a row that only reports the state as it stands. */
  op?: MonoTypeOperatorFunction<RecallState>;
  /** The trace event(s) describing what the stage did, built from the state it emitted. */
  trace?: (state: RecallState) => TraceEventBody | readonly TraceEventBody[] | null;
  /** The `stage` of the event(s) `trace` builds: all a sink that only times the stages is told. */
  event?: TimedStage;
  /** Part of the fetch (arms to model scores): skipped, trace included, when the fetch came from the cache. */
  fetch?: true;
}

/** Runs `op` unless the state was restored from the cache. */
function unlessCached(op: MonoTypeOperatorFunction<RecallState>): MonoTypeOperatorFunction<RecallState> {
  return concatMap((state) => (state.cacheTier !== null ? of(state) : op(of(state))));
}

function stageOperator(stage: Stage, sink: TraceSink | undefined, now: () => number): MonoTypeOperatorFunction<RecallState> {
  const op = stage.op ?? identity;
  const { trace: describe, event } = stage;
  const traced: MonoTypeOperatorFunction<RecallState> =
    event && sink && (describe || sink.timesOnly) ? (s$) => traceStage(sink, now, describe, event)(op(s$)) : op;
  return stage.fetch ? unlessCached(traced) : traced;
}

/** The table as one operator: each row's operator then its trace tap, in table order. */
export function foldStages(
  stages: readonly Stage[],
  sink: TraceSink | undefined,
  now: () => number,
): MonoTypeOperatorFunction<RecallState> {
  const ops = stages.map((s) => stageOperator(s, sink, now));
  return (source) => ops.reduce((s$, op) => op(s$), source);
}
