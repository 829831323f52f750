/**
 * One recall, composed from the stage operators:
 *
 *   persona? ─▶ cache? ─▶ arms (merged, per-arm timeouts) ─▶ floors ─▶ RRF ─▶ superseded filter
 *            ─▶ rerank + embed (forkJoin) ─▶ [cache write] ─▶ boosts ─▶ quarantine ─▶ confidence
 *            ─▶ OOD gate ─▶ MMR / limit ─▶ token budget ─▶ outcome
 *
 * Lazy: nothing runs before subscribe. Never errors for runtime problems: every failure is a
 * degradation in the outcome. Effects (clock, index, models, ledger, scheduler) come from deps.
 */
import path from 'node:path';
import { defer, map, of, type Observable, type SchedulerLike } from 'rxjs';
import type { RecallConfig } from './config.js';
import type { Scope } from './scope.js';
import type { ModelClient } from '../core/ports.js';
import type { Ledger } from '../sources/ledger.js';
import type { IndexHandle } from '../sources/index-store.js';
import { notesByPaths } from '../sources/index-store.js';
import type { TemporalConstraint } from '../core/temporal-constraint.js';
import { bm25Arm } from '../sources/bm25-arm.js';
import { temporalArm } from '../sources/temporal-arm.js';
import { unavailableArm } from '../sources/unavailable-arm.js';
import { graphArm } from '../sources/graph-arm.js';
import { reflectArm } from '../sources/reflect-arm.js';
import { qmdArm } from '../sources/qmd-arm.js';
import { vectorArm } from '../sources/vector-arm.js';
import { storedVectors } from '../sources/index-store.js';
import type { Engines } from './engines.js';
import { runArms, type ArmSpec } from '../operators/run-arms.js';
import { applyArmFloors } from '../operators/arm-floors.js';
import { fuseRrf } from '../operators/fuse-rrf.js';
import { filterSuperseded } from '../operators/filter-superseded.js';
import { rerankTop, RERANK_WINDOW } from '../operators/rerank-top.js';
import { applyBoosts } from '../operators/apply-boosts.js';
import { dropQuarantined } from '../operators/drop-quarantined.js';
import { filterConfidence, type ConfidenceFloor } from '../operators/filter-confidence.js';
import { oodGate } from '../operators/ood-gate.js';
import { diversify } from '../operators/diversify.js';
import { tokenBudget } from '../operators/token-budget.js';
import { estimateRelevance, type EstimateRelevanceOptions } from '../operators/estimate-relevance.js';
import { abstain } from '../operators/abstain.js';
import { queryTerms } from '../core/stems.js';
import { containsTerm, contributions, noteTerms } from '../operators/math/relevance.js';
import { RELEVANCE_TEXT_CHARS } from '../operators/estimate-relevance.js';
import { textStems } from '../core/stems.js';
import { searchableText, type Note } from '../core/note.js';
import type { WeighedTerm } from '../core/state.js';
import { dropsOf, traceStage, type TraceSink } from '../operators/trace-stage.js';
import { toNaiveIso } from '../core/dates.js';
import { contentTerms } from '../core/terms.js';
import {
  CACHE_VERSION,
  fetchedLimitFor,
  modeTokenFor,
  readCache,
  writeCache,
  type CacheHit,
  type CacheKey,
  type CachePayload,
} from './cache.js';
import { initialState, type RecallState } from '../core/state.js';
import { personaLookup } from './persona.js';
import { errorMessage } from '../core/errors.js';
import type { ArmHit, ArmName, ArmOutcome, Candidate, RecallOutcome } from '../core/types.js';

export type RecallMode = 'naive' | 'local' | 'global';

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
  index: IndexHandle;
  /** Index generation after this run's refresh and embedding (the daemon caches vectors by it). */
  indexGeneration: number;
  /** What a cache entry must match to be valid: the index generation after this run's refresh (and the reflect index's mtime when that engine is used). */
  generation: string;
  models: ModelClient;
  now: () => number;
  scheduler?: SchedulerLike;
  /** Current project for the affinity boost ('' = unknown); called at most once, lazily. */
  currentProject: () => string;
  ledger: () => Ledger | null;
  extractTemporal: (query: string) => TemporalConstraint | null;
  /** Engine per arm (embedded or external). */
  engines: Engines;
  /** Environment handed to external engines. */
  env: Readonly<Record<string, string | undefined>>;
  /** Receives one event per stage as it completes (`recall trace`); absent = no tracing. */
  trace?: TraceSink;
  /** The live team-store arm (RECALL_TEAM_ARM=1 with a configured store); absent = not run. */
  teamArm?: (query: string, limit: number, timeoutMs: number) => Observable<ArmHit[]>;
  /** Document frequencies (this KB) and everyday-English weights of query stems, for the relevance estimate. */
  weighTerms: EstimateRelevanceOptions['weigh'];
  /** Whether any live note is dated inside [startMs, endMs] (moves a year-less date window to the KB's years). */
  hasNotesIn?: (startMs: number, endMs: number) => boolean;
  /** Related words for the lexical arm's lower-weighted second query (WordNet); absent = none. */
  expandQuery?: (query: string) => string[];
  /** Entity-graph links between candidate notes (by path), for the relevance estimate. */
  linkedNotes?: EstimateRelevanceOptions['links'];
}

/** Per-arm timeouts capped by what is left before the request's deadline. */
function budgeted(timeouts: Readonly<Record<ArmName, number>>, req: RecallRequest, deps: RecallDeps): Record<ArmName, number> {
  const left = req.deadlineMs === undefined ? Infinity : req.deadlineMs - deps.now();
  const cap = (ms: number): number => Math.max(1, Math.min(ms, left));
  return {
    vector: cap(timeouts.vector),
    bm25: cap(timeouts.bm25),
    graph: cap(timeouts.graph),
    temporal: cap(timeouts.temporal),
    team: cap(timeouts.team),
  };
}

/** The words of the query's date phrase ("in july" → july), for the lexical arm's lower-weighted query. */
export function datePhraseWords(temporal: TemporalConstraint | null): string[] {
  if (!temporal?.matchedText) return [];
  return (temporal.matchedText.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= 3 && !/^(?:in|on|at|last|this|since|before|after|until|till|from|during|around|the)$/.test(w),
  );
}

/** Years a year-less date window may move back to find the KB's notes. */
const MAX_YEARS_BACK = 30;

/**
 * A window whose phrase named no year ("in july") was placed in the latest such month not in the
 * future. When the KB has no note dated inside it, move it back year by year to the latest one that
 * has: a KB of 2023 notes asked about "july" means July 2023. Windows with a year stay as they are.
 */
export function inKbYears(
  c: TemporalConstraint | null,
  hasNotesIn?: (startMs: number, endMs: number) => boolean,
): TemporalConstraint | null {
  if (!c || !c.impliedYear || !hasNotesIn) return c;
  const shift = (d: Date, years: number): Date => {
    const x = new Date(d.getTime());
    x.setFullYear(d.getFullYear() - years);
    return x;
  };
  for (let back = 0; back <= MAX_YEARS_BACK; back += 1) {
    const start = shift(c.start, back);
    const end = shift(c.end, back);
    if (hasNotesIn(start.getTime(), end.getTime())) return back === 0 ? c : { ...c, start, end };
  }
  return c;
}

/**
 * The query minus its date phrase: "last week", "march 2024" say when, not what, so the lexical arm
 * should not rank notes for containing those words (the temporal arm handles the window).
 */
export function withoutDatePhrase(query: string, temporal: TemporalConstraint | null): string {
  if (!temporal || !temporal.matchedText) return query;
  const i = query.toLowerCase().indexOf(temporal.matchedText.toLowerCase());
  return i < 0 ? query : `${query.slice(0, i)} ${query.slice(i + temporal.matchedText.length)}`;
}

function armSpecs(req: RecallRequest, deps: RecallDeps, temporal: TemporalConstraint | null, fetchedLimit: number): ArmSpec[] {
  const { config, engines } = deps;
  const t = budgeted(config.armTimeoutsMs, req, deps);
  const reflect = engines.vectorGraph.kind === 'reflect' ? engines.vectorGraph : null;
  const reflectOpts = reflect ? { bin: reflect.bin, kbRoot: deps.scope.root, env: deps.env, index: deps.index, limit: fetchedLimit } : null;
  const graphSource = (): Observable<ArmHit[]> =>
    reflectOpts ? reflectArm(req.query, 'local', reflectOpts) : graphArm(req.query, fetchedLimit, deps.index, deps.now());

  // The primary slot searches in the requested mode: naive = vector, local = graph neighbourhood,
  // global = community reports (reflect engine only).
  let primary: Observable<ArmHit[]>;
  if (reflectOpts) primary = reflectArm(req.query, req.mode, reflectOpts);
  else if (req.mode === 'local') primary = graphSource();
  else if (req.mode === 'global')
    primary = unavailableArm('vector', '--mode global needs the reflect engine (community reports); the embedded index has none');
  else primary = vectorArm(req.query, fetchedLimit, deps.index, deps.models, deps.indexGeneration);

  const graphDisabled = !config.graphArm
    ? 'RECALL_GRAPH_ARM=0'
    : req.mode === 'local'
      ? '--mode local: the primary arm is already the graph arm'
      : undefined;
  const temporalDisabled = !config.temporalArm
    ? 'RECALL_TEMPORAL_ARM=0'
    : !config.temporalEnabled
      ? 'RECALL_TEMPORAL=0'
      : temporal === null
        ? 'no date phrase in the query'
        : undefined;
  const lexicalQuery = withoutDatePhrase(req.query, temporal);
  const team: ArmSpec[] = deps.teamArm
    ? [{ arm: 'team', source: deps.teamArm(lexicalQuery, fetchedLimit, t.team), timeoutMs: t.team }]
    : [];
  return [
    { arm: 'vector', source: primary, timeoutMs: t.vector },
    {
      arm: 'bm25',
      source:
        engines.bm25.kind === 'qmd'
          ? qmdArm(lexicalQuery, {
              bin: engines.bm25.bin,
              collection: config.qmdCollection,
              env: deps.env,
              index: deps.index,
              limit: fetchedLimit,
            })
          : bm25Arm(lexicalQuery, fetchedLimit, deps.index, {
              expansions: [
                // The date phrase left the lexical query (the temporal arm handles the window), but a
                // note that names the month in its text ("in July") is still evidence: at a lower weight.
                ...datePhraseWords(temporal),
                ...(deps.expandQuery?.(lexicalQuery) ?? []),
              ],
            }),
      timeoutMs: t.bm25,
    },
    { arm: 'graph', source: graphSource(), timeoutMs: t.graph, ...(graphDisabled ? { disabled: graphDisabled } : {}) },
    {
      arm: 'temporal',
      source: temporal ? temporalArm(req.query, temporal, fetchedLimit, deps.index) : of([]),
      timeoutMs: t.temporal,
      ...(temporalDisabled ? { disabled: temporalDisabled } : {}),
    },
    ...team,
  ];
}

function toPayload(state: RecallState, key: CacheKey, deps: RecallDeps): CachePayload {
  return {
    version: CACHE_VERSION,
    query: key.query,
    mode: key.mode,
    modeToken: key.modeToken,
    fetchedLimit: key.fetchedLimit,
    generation: deps.generation,
    fetchedAt: deps.now(),
    candidates: state.candidates.map((c) => ({ path: c.note.path, key: c.note.key, rrf: c.rrf, evidence: c.evidence, ranks: c.ranks })),
    ce: state.ce ? Object.fromEntries(state.ce) : null,
    embeddings: state.embeddings ? { query: state.embeddings.query, docs: Object.fromEntries(state.embeddings.docs) } : null,
    arms: state.arms.map(({ hits: _hits, ...rest }) => rest),
    degraded: state.degraded,
  };
}

/** Rebuild the retrieval state from a cache hit; null when a cached note is gone from the index. */
function fromCache(hit: CacheHit, base: RecallState, deps: RecallDeps): RecallState | null {
  const p = hit.payload;
  const notes = notesByPaths(
    deps.index,
    p.candidates.map((c) => c.path),
  );
  const candidates: Candidate[] = [];
  for (const c of p.candidates) {
    const note = notes.get(c.path);
    if (!note || note.key !== c.key) return null;
    candidates.push({ note, rrf: c.rrf, evidence: c.evidence, ranks: c.ranks });
  }
  return {
    ...base,
    arms: p.arms.map((a) => ({ ...a, hits: [] })),
    candidates,
    ce: p.ce ? new Map(Object.entries(p.ce)) : null,
    embeddings: p.embeddings ? { query: p.embeddings.query, docs: new Map(Object.entries(p.embeddings.docs)) } : null,
    degraded: p.degraded,
    cacheTier: hit.tier,
  };
}

export function recall$(req: RecallRequest, deps: RecallDeps): Observable<RecallOutcome> {
  return defer(() => {
    const { config } = deps;
    const t0 = deps.now();
    const outcome = (state: RecallState, temporal: TemporalConstraint | null): RecallOutcome => ({
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
      ms: deps.now() - t0,
    });

    let ledgerOpened = false;
    let ledger: Ledger | null = null;
    const degradedEarly: RecallState['degraded'] = deps.engines.fallbacks.map((message) => ({
      stage: 'engine',
      reason: 'unavailable' as const,
      message,
    }));
    const lazyLedger = (): Ledger | null => {
      if (!ledgerOpened) {
        ledgerOpened = true;
        try {
          ledger = deps.ledger();
        } catch (err) {
          degradedEarly.push({ stage: 'ledger', reason: 'error', message: errorMessage(err) });
        }
      }
      return ledger;
    };

    // 0. Persona short-circuit (only consults reflect.db when the query is open-domain).
    const project = deps.scope.kind === 'branch-shard' || deps.scope.kind === 'project-shard' ? deps.scope.project : null;
    const persona = personaLookup(req.query, () => project ?? deps.currentProject(), lazyLedger);
    if (persona) {
      const base = outcome(initialState(req.query, []), null);
      return of({ ...base, persona });
    }

    const temporal = config.temporalEnabled ? inKbYears(deps.extractTemporal(req.query), deps.hasNotesIn) : null;
    const terms = contentTerms(req.query);
    const base = initialState(req.query, terms);
    const fetchedLimit = fetchedLimitFor(req.limit);
    const key: CacheKey = {
      query: req.query,
      mode: req.mode,
      // Engines are part of the key: the same query through reflect or qmd fetches different candidates.
      modeToken: modeTokenFor(`${req.mode}:${deps.engines.vectorGraph.kind}:${deps.engines.bm25.kind}`, path.resolve(deps.scope.root)),
      fetchedLimit,
    };
    const cacheDir = path.join(config.stateDir, 'recall_cache');
    const cacheOpts = {
      dir: cacheDir,
      ttlSec: req.cacheTtlSec,
      fuzzy: config.fuzzyCache,
      fuzzyThreshold: config.fuzzyThreshold,
      generation: deps.generation,
      nowMs: deps.now(),
    };
    let hit: RecallState | null = null;
    if (!req.noCache) {
      try {
        const found = readCache(key, cacheOpts);
        hit = found ? fromCache(found, base, deps) : null;
      } catch (err) {
        degradedEarly.push({ stage: 'cache', reason: 'error', message: `cache read failed: ${errorMessage(err)}` });
      }
    }

    const trace = deps.trace;
    const now = (): number => deps.now() - t0;
    trace?.({
      stage: 'start',
      query: req.query,
      terms,
      temporal: temporal ? { start: toNaiveIso(temporal.start), end: toNaiveIso(temporal.end), matched: temporal.matchedText } : null,
      t: now(),
    });
    trace?.({ stage: 'cache', tier: hit?.cacheTier ?? null, t: now() });
    const armEvent = (o: ArmOutcome): void =>
      trace?.({
        stage: 'arm',
        arm: o.arm,
        status: o.status,
        ms: o.ms,
        ...(o.message ? { message: o.message } : {}),
        hits: o.hits.map((h, i) => ({ rank: i + 1, id: h.note.key, score: h.score })),
        t: now(),
      });
    const retrieved$: Observable<RecallState> = hit
      ? of(hit)
      : of(armSpecs(req, deps, temporal, fetchedLimit))
          .pipe(
            runArms({ ...(deps.scheduler ? { scheduler: deps.scheduler } : {}), ...(trace ? { onOutcome: armEvent } : {}) }),
            map((arms): RecallState => ({ ...base, arms })),
          )
          .pipe(
            applyArmFloors(config.armFloors),
            traceStage(trace, now, (st) => ({ stage: 'floors', dropped: dropsOf(st, 'arm-floor') })),
            fuseRrf(),
            traceStage(trace, now, (st) => ({
              stage: 'fuse',
              candidates: st.candidates.map((c, i) => ({
                rank: i + 1,
                id: c.note.key,
                rrf: c.rrf,
                evidence: c.evidence,
                arms: Object.keys(c.ranks) as ArmName[],
              })),
            })),
            filterSuperseded({ enabled: !config.includeSuperseded, index: deps.index, ledger: lazyLedger }),
            traceStage(trace, now, (st) => ({ stage: 'superseded', dropped: dropsOf(st, 'superseded') })),
          )
          .pipe(
            rerankTop({
              client: deps.models,
              crossEncoder: config.crossEncoder,
              embeddings: req.mmr,
              // Evaluated when the stage starts: whatever the arms left of the deadline.
              timeoutMs: () =>
                Math.max(1, Math.min(Math.max(config.ceTimeoutMs, config.embedTimeoutMs), (req.deadlineMs ?? Infinity) - deps.now())),
              storedVectors: (paths) => (deps.models.models.embed ? storedVectors(deps.index, deps.models.models.embed, paths) : new Map()),
              ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
            }),
            map((state) => {
              // Do not cache a fetch that lost an arm to a transient failure: the next call retries.
              const transient = state.arms.some((a) => a.status === 'timeout' || a.status === 'error');
              if (req.noCache || transient) return state;
              try {
                writeCache(key, toPayload(state, key, deps), cacheDir, deps.now());
                return state;
              } catch (err) {
                return {
                  ...state,
                  degraded: [
                    ...state.degraded,
                    { stage: 'cache', reason: 'error' as const, message: `cache write failed: ${errorMessage(err)}` },
                  ],
                };
              }
            }),
          );

    const relevanceTerms = queryTerms(withoutDatePhrase(req.query, temporal));
    const boostContext = (candidates: readonly Candidate[]) => ({
      nowMs: deps.now(),
      queryTags: req.tags,
      currentProject:
        config.alphas.project > 0 && project === null && candidates.some((c) => c.note.projectId !== '') ? deps.currentProject() : '',
      domainHint: req.domainHint,
    });

    const kept = (st: RecallState): string[] => st.selected.map((c) => c.note.key);
    const filterEvent = (stage: 'quarantine' | 'confidence' | 'budget') => (st: RecallState) => ({
      stage,
      kept: kept(st),
      dropped: dropsOf(st, stage),
    });
    return retrieved$
      .pipe(
        map((s) => (degradedEarly.length ? { ...s, degraded: [...degradedEarly, ...s.degraded] } : s)),
        traceStage(trace, now, (st) => ({
          stage: 'rerank',
          crossEncoder: st.ce !== null,
          embeddings: st.embeddings !== null,
          degraded: st.degraded
            .filter((d) => d.stage === 'rerank' || d.stage === 'embed')
            .map((d) => `${d.stage}: ${d.reason}: ${d.message}`),
        })),
        estimateRelevance({
          terms: relevanceTerms,
          weigh: deps.weighTerms,
          dateWindow: temporal !== null,
          window: Math.max(RERANK_WINDOW, req.limit),
          ...(deps.linkedNotes ? { links: deps.linkedNotes } : {}),
        }),
        traceStage(trace, now, (st) => ({
          stage: 'relevance',
          terms: st.weighed.map((t) => ({ word: t.word, info: t.info, df: t.df, proper: t.proper })),
          candidates: st.candidates.slice(0, RERANK_WINDOW).map((c) => {
            const e = st.relevance.get(c.note.key);
            return {
              id: c.note.key,
              relevance: e?.p ?? 0,
              source: e?.source ?? 'lexical',
              features: e?.features ?? null,
              contributions: e?.features ? contributions(e.features) : null,
              missing: missingTerms(st.weighed, c.note),
            };
          }),
        })),
      )
      .pipe(
        applyBoosts({ alphas: config.alphas, context: boostContext }),
        traceStage(trace, now, (st) => ({
          stage: 'score',
          candidates: st.scored.map((c, i) => ({
            rank: i + 1,
            id: c.note.key,
            score: c.score,
            base: c.base,
            relevance: c.relevance,
            ce: c.ce,
            boosts: c.boosts,
          })),
        })),
        dropQuarantined(req.includeQuarantined),
        traceStage(trace, now, filterEvent('quarantine')),
        filterConfidence(req.confidence),
        traceStage(trace, now, filterEvent('confidence')),
      )
      .pipe(
        oodGate(req.minOverlap),
        traceStage(trace, now, (st) => ({
          stage: 'ood-gate',
          coverage: st.coverage,
          gated: st.oodGated,
          minOverlap: req.minOverlap,
          kept: kept(st),
        })),
        abstain({ floor: req.floor, keepWeak: req.keepWeak }),
        traceStage(trace, now, (st) => ({
          stage: 'abstain',
          floor: req.floor,
          kept: kept(st),
          weak: st.weak.map((c) => c.note.key),
          dropped: dropsOf(st, 'relevance-floor'),
          abstained: st.abstained,
        })),
      )
      .pipe(
        diversify(req.limit, req.mmrLambda, req.mmr),
        traceStage(trace, now, (st) => ({ stage: 'mmr', kept: kept(st), dropped: [...dropsOf(st, 'mmr'), ...dropsOf(st, 'limit')] })),
        tokenBudget(req.maxTokens),
        traceStage(trace, now, filterEvent('budget')),
        map((s) => outcome(s, temporal)),
        traceResult(trace, now),
      );
  });
}

/** Query words a note lacks, most informative first (for trace and explain only). */
function missingTerms(terms: readonly WeighedTerm[], note: Note): string[] {
  const stems = noteTerms(textStems(searchableText(note), RELEVANCE_TEXT_CHARS));
  return terms
    .filter((t) => !containsTerm(stems, t.stem))
    .sort((a, b) => b.info - a.info)
    .map((t) => t.word);
}

/** The final event: what the recall returns. */
function traceResult(trace: TraceSink | undefined, now: () => number): (o$: Observable<RecallOutcome>) => Observable<RecallOutcome> {
  return (o$) =>
    trace
      ? o$.pipe(
          map((o) => {
            try {
              trace({
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
            return o;
          }),
        )
      : o$;
}

export { RERANK_WINDOW };
