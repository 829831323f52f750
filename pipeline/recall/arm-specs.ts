/**
 * The retrieval arms of one request: which source serves each arm (embedded index, reflect, qmd,
 * the team store), with what query, and under what timeout (each arm's own, capped by the time left
 * before the request's deadline). Sources are lazy: nothing runs until the arm runner subscribes.
 */
import { of, type Observable } from 'rxjs';
import type { ModelClient } from '../../core/ports.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import type { ArmHit, ArmName } from '../../core/types.js';
import type { ArmSpec } from '../../operators/run-arms.js';
import { bm25Arm, graphArm, qmdArm, reflectArm, temporalArm, unavailableArm, vectorArm } from '../../sources/arms/index.js';
import type { IndexHandle } from '../../sources/index/index.js';
import type { RecallConfig } from '../config/index.js';
import type { Engines } from './engines.js';
import { datePhraseWords, withoutDatePhrase } from './date-phrase.js';

export type RecallMode = 'naive' | 'local' | 'global';

/** What the arms of one request are asked. */
export interface ArmPlan {
  query: string;
  mode: RecallMode;
  /** Absolute time (epoch ms) by which the result must be ready; absent = none. */
  deadlineMs?: number;
  temporal: TemporalConstraint | null;
  /** Hits each arm returns (more than the limit: fusion and filters need room). */
  fetchedLimit: number;
}

/** Everything the arms read from: the KB's index and engines, models, environment. */
export interface ArmWiring {
  config: Pick<RecallConfig, 'armTimeoutsMs' | 'graphArm' | 'episodeWeight' | 'temporalArm' | 'temporalEnabled' | 'qmdCollection'>;
  engines: Engines;
  kbRoot: string;
  index: IndexHandle;
  /** Index generation after this run's refresh and embedding (the daemon caches vectors by it). */
  indexGeneration: number;
  models: ModelClient;
  now: () => number;
  /** Environment handed to external engines. */
  env: Readonly<Record<string, string | undefined>>;
  /** Related words for the lexical arm's lower-weighted second query (WordNet); absent = none. */
  expandQuery?: (query: string) => string[];
  /** The live team-store arm (RECALL_TEAM_ARM=1 with a configured store); absent = not run. */
  teamArm?: (query: string, limit: number, timeoutMs: number) => Observable<ArmHit[]>;
}

/** Per-arm timeouts capped by what is left before the request's deadline. */
function budgeted(plan: ArmPlan, w: ArmWiring): Record<ArmName, number> {
  const left = plan.deadlineMs === undefined ? Infinity : plan.deadlineMs - w.now();
  const t = w.config.armTimeoutsMs;
  const cap = (ms: number): number => Math.max(1, Math.min(ms, left));
  return { vector: cap(t.vector), bm25: cap(t.bm25), graph: cap(t.graph), temporal: cap(t.temporal), team: cap(t.team) };
}

function reflectOptions(plan: ArmPlan, w: ArmWiring) {
  const reflect = w.engines.vectorGraph.kind === 'reflect' ? w.engines.vectorGraph : null;
  return reflect ? { bin: reflect.bin, kbRoot: w.kbRoot, env: w.env, index: w.index, limit: plan.fetchedLimit } : null;
}

function graphSource(plan: ArmPlan, w: ArmWiring): Observable<ArmHit[]> {
  const reflect = reflectOptions(plan, w);
  return reflect ? reflectArm(plan.query, 'local', reflect) : graphArm(plan.query, plan.fetchedLimit, w.index, w.now());
}

/**
 * The primary slot searches in the requested mode: naive = vector, local = graph neighbourhood,
 * global = community reports (reflect engine only).
 */
function primarySource(plan: ArmPlan, w: ArmWiring): Observable<ArmHit[]> {
  const reflect = reflectOptions(plan, w);
  if (reflect) return reflectArm(plan.query, plan.mode, reflect);
  if (plan.mode === 'local') return graphSource(plan, w);
  if (plan.mode === 'global')
    return unavailableArm('vector', '--mode global needs the reflect engine (community reports); the embedded index has none');
  return vectorArm(plan.query, plan.fetchedLimit, w.index, w.models, w.indexGeneration);
}

function lexicalSource(plan: ArmPlan, w: ArmWiring): Observable<ArmHit[]> {
  const query = withoutDatePhrase(plan.query, plan.temporal);
  if (w.engines.bm25.kind === 'qmd') {
    return qmdArm(query, {
      bin: w.engines.bm25.bin,
      collection: w.config.qmdCollection,
      env: w.env,
      index: w.index,
      limit: plan.fetchedLimit,
    });
  }
  return bm25Arm(query, plan.fetchedLimit, w.index, {
    episodeWeight: w.config.episodeWeight,
    expansions: [
      // The date phrase left the lexical query (the temporal arm handles the window), but a
      // note that names the month in its text ("in July") is still evidence: at a lower weight.
      ...datePhraseWords(plan.temporal),
      ...(w.expandQuery?.(query) ?? []),
    ],
  });
}

function graphDisabled(plan: ArmPlan, w: ArmWiring): string | undefined {
  if (!w.config.graphArm) return 'RECALL_GRAPH_ARM=0';
  return plan.mode === 'local' ? '--mode local: the primary arm is already the graph arm' : undefined;
}

function temporalDisabled(plan: ArmPlan, w: ArmWiring): string | undefined {
  if (!w.config.temporalArm) return 'RECALL_TEMPORAL_ARM=0';
  if (!w.config.temporalEnabled) return 'RECALL_TEMPORAL=0';
  return plan.temporal === null ? 'no date phrase in the query' : undefined;
}

/** The arms in their fixed order (vector, bm25, graph, temporal, then the team arm when enabled). */
export function armSpecs(plan: ArmPlan, w: ArmWiring): ArmSpec[] {
  const t = budgeted(plan, w);
  const lexicalQuery = withoutDatePhrase(plan.query, plan.temporal);
  const graphOff = graphDisabled(plan, w);
  const temporalOff = temporalDisabled(plan, w);
  const team: ArmSpec[] = w.teamArm ? [{ arm: 'team', source: w.teamArm(lexicalQuery, plan.fetchedLimit, t.team), timeoutMs: t.team }] : [];
  return [
    { arm: 'vector', source: primarySource(plan, w), timeoutMs: t.vector },
    { arm: 'bm25', source: lexicalSource(plan, w), timeoutMs: t.bm25 },
    { arm: 'graph', source: graphSource(plan, w), timeoutMs: t.graph, ...(graphOff ? { disabled: graphOff } : {}) },
    {
      arm: 'temporal',
      source: plan.temporal ? temporalArm(plan.query, plan.temporal, plan.fetchedLimit, w.index) : of([]),
      timeoutMs: t.temporal,
      ...(temporalOff ? { disabled: temporalOff } : {}),
    },
    ...team,
  ];
}
