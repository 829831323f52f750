/**
 * What one recall is asked (RecallRequest) and what it runs with (RecallDeps): every effect — the
 * clock, the arms, the models, the cache, the retired-note lookups, the trace sink — comes in
 * through these, so the whole recall runs under a test scheduler with fakes.
 */
import type { SchedulerLike } from 'rxjs';
import type { CachePort, ModelClient, RetiredLookup } from '../../core/ports.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import type { EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import type { ConfidenceFloor } from '../../operators/filters.js';
import type { ArmSpec } from '../../operators/run-arms.js';
import type { TraceSink } from '../../operators/trace-stage.js';
import type { Ledger } from '../../sources/ledger.js';
import type { ArmPlan, RecallMode } from './arm-specs.js';
import type { RecallConfig } from '../config/index.js';
import type { Scope } from '../scope.js';

export type { ArmPlan, RecallMode } from './arm-specs.js';

export interface RecallRequest {
  query: string;
  limit: number;
  mode: RecallMode;
  confidence: ConfidenceFloor;
  tags: string[];
  domainHint: string;
  minOverlap: number;
  maxTokens: number;
  noCache: boolean;
  cacheTtlSec: number;
  includeQuarantined: boolean;
  mmr: boolean;
  mmrLambda: number;
  /** Absolute relevance below which a candidate is not a result (0..1, 0 = off). */
  floor: number;
  /** Keep candidates under the floor as weak matches (shown by the CLI, never injected by hooks). */
  keepWeak: boolean;
  /** Absolute time (epoch ms) by which the result must be ready: arm and model budgets shrink to fit. */
  deadlineMs?: number;
}

export interface RecallDeps {
  config: RecallConfig;
  scope: Scope;
  models: ModelClient;
  now: () => number;
  scheduler?: SchedulerLike;
  /** Current project for the affinity boost ('' = unknown); called at most once, lazily. */
  currentProject: () => string;
  /** The reference's reflect.db ledger, or null when there is none; may throw (recorded as a degradation). */
  ledger: () => Ledger | null;
  extractTemporal: (query: string) => TemporalConstraint | null;
  /** Why a requested engine is not used (each becomes a degradation). */
  engineFallbacks: readonly string[];
  /** The retrieval arms of a request, as lazy sources with their timeouts. */
  arms: (plan: ArmPlan) => ArmSpec[];
  /** The recall cache of this request (NO_CACHE when the cache is off or cannot be trusted). */
  cache: CachePort;
  /** The superseded filter's lookups; `ledger` opens reflect.db at most once per recall. */
  retired: (ledger: () => Ledger | null) => RetiredLookup;
  /** Vectors already stored in the index for these note paths (not recomputed by the rerank stage). */
  storedVectors: (paths: string[]) => Map<string, number[]>;
  /** Receives one event per stage as it completes (`recall trace`); absent = no tracing. */
  trace?: TraceSink;
  /** Document frequencies (this KB) and everyday-English weights of query stems, for the relevance estimate. */
  weighTerms: EstimateRelevanceOptions['weigh'];
  /** Whether any live note is dated inside [startMs, endMs] (moves a year-less date window to the KB's years). */
  hasNotesIn?: (startMs: number, endMs: number) => boolean;
  /** Entity-graph links between candidate notes (by path), for the relevance estimate. */
  linkedNotes?: EstimateRelevanceOptions['links'];
  /** Successions among candidate notes (by path: older → newer), for the relevance estimate. */
  successorNotes?: EstimateRelevanceOptions['successors'];
}
