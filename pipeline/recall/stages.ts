/**
 * The stages of one recall, in order, as a table (folded into one operator by pipeline/recall/stage-table.ts):
 *
 *   start ─▶ cache ─▶ arms ─▶ floors ─▶ fuse ─▶ team notes ─▶ superseded ─▶ rerank ─▶ store fetch (the fetch)
 *         ─▶ early degradations ─▶ relevance ─▶ score ─▶ quarantine ─▶ confidence ─▶ OOD gate
 *         ─▶ abstain ─▶ MMR / limit ─▶ token budget                                       (the ranking)
 *
 * The fetch rows are skipped when the cache served the fetch; the ranking always runs again.
 */
import { concatMap, map, of, type SchedulerLike } from 'rxjs';
import { contentStemSequence, queryTerms } from '../../core/stems.js';
import type { RecallState } from '../../core/state.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import type { Candidate, Degradation } from '../../core/types.js';
import { NO_CACHE, type RetiredLookup } from '../../core/ports.js';
import { abstain } from '../../operators/abstain.js';
import { applyBoosts } from '../../operators/apply-boosts.js';
import { applyArmFloors } from '../../operators/arm-floors.js';
import { TEAM_PREFIX } from '../../sources/team/index.js';
import { estimateRelevance } from '../../operators/estimate-relevance.js';
import { filterSuperseded } from '../../operators/filter-superseded.js';
import { fuseRrf } from '../../operators/fuse-rrf.js';
import { rerankTop } from '../../operators/rerank-top.js';
import { runArms } from '../../operators/run-arms.js';
import { storeFetch } from '../../operators/store-fetch.js';
import { diversify, dropQuarantined, dropTeamNotes, filterConfidence, oodGate, tokenBudget } from '../../operators/filters.js';
import { withoutDatePhrase } from './date-phrase.js';
import type { RecallDeps, RecallRequest } from './request.js';
import * as events from './trace.js';
import type { Stage } from './stage-table.js';

/** One recall's request, effects and what its prologue worked out. */
export interface RecallRun {
  req: RecallRequest;
  deps: RecallDeps;
  temporal: TemporalConstraint | null;
  fetchedLimit: number;
  /** The project of a project or branch shard, else null (the boost then asks deps.currentProject). */
  project: string | null;
  retired: RetiredLookup;
  /**
   * Degradations of this run that a cached fetch must not carry (engine fallbacks, a failed cache
   * read, a reflect.db that would not open): the run's own list, which grows while the fetch runs
   * (the ledger opens then), read when the fetch is done and put first.
   */
  early: readonly Degradation[];
}

const withScheduler = (scheduler: SchedulerLike | undefined) => (scheduler ? { scheduler } : {});

/** Runs the arms of the request, each under its timeout, and records their outcomes. */
function armsStage(run: RecallRun): Stage['op'] {
  const { req, deps } = run;
  return concatMap((state: RecallState) =>
    of(
      deps.arms({
        query: req.query,
        mode: req.mode,
        temporal: run.temporal,
        fetchedLimit: run.fetchedLimit,
        ...(req.deadlineMs !== undefined ? { deadlineMs: req.deadlineMs } : {}),
      }),
    ).pipe(
      runArms(withScheduler(deps.scheduler)),
      map((arms): RecallState => ({ ...state, arms })),
    ),
  );
}

function rerankStage({ req, deps }: RecallRun): Stage['op'] {
  const { config } = deps;
  return rerankTop({
    client: deps.models,
    crossEncoder: config.crossEncoder,
    embeddings: req.mmr,
    // Evaluated when the stage starts: whatever the arms left of the deadline.
    timeoutMs: () => Math.max(1, Math.min(Math.max(config.ceTimeoutMs, config.embedTimeoutMs), (req.deadlineMs ?? Infinity) - deps.now())),
    storedVectors: deps.storedVectors,
    ...withScheduler(deps.scheduler),
  });
}

function fetchStages(run: RecallRun): Stage[] {
  const { config } = run.deps;
  // The event builders only for a sink that reads the events: none without a sink, nor for one that times the stages only.
  const ev = run.deps.trace && !run.deps.trace.timesOnly ? events : undefined;
  return [
    { name: 'start', event: 'start', trace: ev?.startEvent(run.temporal) },
    { name: 'cache', event: 'cache', trace: ev?.cacheEvent },
    { name: 'arms', op: armsStage(run), event: 'arm', trace: ev?.armEvents, fetch: true },
    { name: 'floors', op: applyArmFloors(config.armFloors), event: 'floors', trace: ev?.floorsEvent, fetch: true },
    { name: 'fuse', op: fuseRrf(), event: 'fuse', trace: ev?.fuseEvent, fetch: true },
    { name: 'team notes', op: dropTeamNotes(config.teamNotes, TEAM_PREFIX), fetch: true },
    {
      name: 'superseded',
      op: filterSuperseded({ enabled: !config.includeSuperseded, lookup: run.retired }),
      event: 'superseded',
      trace: ev?.supersededEvent,
      fetch: true,
    },
    { name: 'rerank', op: rerankStage(run), fetch: true },
    { name: 'store fetch', op: storeFetch(run.req.noCache ? NO_CACHE : run.deps.cache), fetch: true },
    {
      name: 'early degradations',
      op: map((s) => {
        const { early } = run;
        return early.length ? { ...s, degraded: [...early, ...s.degraded] } : s;
      }),
      // Reported here whether the model scores were fetched now or restored from the cache.
      event: 'rerank',
      trace: ev?.rerankEvent,
    },
  ];
}

function rankStages(run: RecallRun): Stage[] {
  const { req, deps, temporal } = run;
  // The event builders only for a sink that reads the events: none without a sink, nor for one that times the stages only.
  const ev = run.deps.trace && !run.deps.trace.timesOnly ? events : undefined;
  const { config } = deps;
  const boostContext = (candidates: readonly Candidate[]) => ({
    nowMs: deps.now(),
    queryTags: req.tags,
    currentProject:
      config.alphas.project > 0 && run.project === null && candidates.some((c) => c.note.projectId !== '') ? deps.currentProject() : '',
    domainHint: req.domainHint,
  });
  const relevance = estimateRelevance({
    terms: queryTerms(withoutDatePhrase(req.query, temporal)),
    sequence: contentStemSequence(withoutDatePhrase(req.query, temporal)),
    weigh: deps.weighTerms,
    dateWindow: temporal !== null,
    limit: req.limit,
    ...(deps.linkedNotes ? { links: deps.linkedNotes } : {}),
    ...(deps.successorNotes ? { successors: deps.successorNotes } : {}),
  });
  return [
    { name: 'relevance', op: relevance, event: 'relevance', trace: ev?.relevanceEvent },
    { name: 'score', op: applyBoosts({ alphas: config.alphas, context: boostContext }), event: 'score', trace: ev?.scoreEvent },
    { name: 'quarantine', op: dropQuarantined(req.includeQuarantined), event: 'quarantine', trace: ev?.filterEvent('quarantine') },
    { name: 'confidence', op: filterConfidence(req.confidence), event: 'confidence', trace: ev?.filterEvent('confidence') },
    { name: 'ood gate', op: oodGate(req.minOverlap), event: 'ood-gate', trace: ev?.oodGateEvent(req.minOverlap) },
    { name: 'abstain', op: abstain({ floor: req.floor, keepWeak: req.keepWeak }), event: 'abstain', trace: ev?.abstainEvent(req.floor) },
    { name: 'mmr', op: diversify(req.limit, req.mmrLambda, req.mmr), event: 'mmr', trace: ev?.mmrEvent },
    { name: 'budget', op: tokenBudget(req.maxTokens), event: 'budget', trace: ev?.filterEvent('budget') },
  ];
}

export function recallStages(run: RecallRun): Stage[] {
  return [...fetchStages(run), ...rankStages(run)];
}
