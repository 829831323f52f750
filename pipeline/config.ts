/**
 * The one module that reads the environment. It parses, normalises and validates every knob into a
 * typed object; a malformed value never throws: it becomes a warning and the default is used.
 *
 * Precedence: CLI flags (applied by the CLI on top of this) > environment > defaults.
 */
import os from 'node:os';
import path from 'node:path';

import { ARM_NAMES, type ArmName, type BoostName } from '../core/types.js';

/** Env name and default alpha of each bounded boost (seed §6). Alphas are clamped to 0..2. */
export const BOOST_ALPHAS: Readonly<Record<BoostName, { env: string; def: number }>> = {
  confidence: { env: 'RECALL_CONFIDENCE_ALPHA', def: 0.2 },
  recency: { env: 'RECALL_RECENCY_ALPHA', def: 0.2 },
  tags: { env: 'RECALL_TAG_ALPHA', def: 0.2 },
  proof: { env: 'RECALL_PROOF_ALPHA', def: 0.1 },
  project: { env: 'RECALL_PROJECT_ALPHA', def: 0.2 },
  domain: { env: 'RECALL_DOMAIN_ALPHA', def: 0.2 },
  authority: { env: 'RECALL_AUTHORITY_ALPHA', def: 0.1 },
  speculative: { env: 'RECALL_SPECULATIVE_ALPHA', def: 0.2 },
};

/**
 * Per-arm timeouts in seconds (seed's arm table; temporal is a local index query; the team arm is a
 * network round trip that must not hold up a hook).
 */
const ARM_TIMEOUT_DEFAULTS: Readonly<Record<ArmName, number>> = { vector: 60, bm25: 10, graph: 60, temporal: 10, team: 2 };

export type VectorGraphEngine = 'auto' | 'embedded' | 'reflect';
export type Bm25Engine = 'auto' | 'embedded' | 'qmd';

export interface RecallConfig {
  home: string;
  /** Engine of the vector and graph arms (RECALL_ENGINE). */
  engine: VectorGraphEngine;
  /** Engine of the BM25 arm (RECALL_BM25_ENGINE). */
  bm25Engine: Bm25Engine;
  /** qmd collection searched by the qmd BM25 engine (RECALL_QMD_COLLECTION). */
  qmdCollection: string;
  /** PATH used to find external engines. */
  path: string;
  stateDir: string;
  debug: boolean;
  defaultLimit: number;
  defaultMaxChars: number;
  defaultMinOverlap: number;
  /**
   * Relevance floors per caller (0..1, 0 = off): a learning below its caller's floor is never
   * injected (the CLI lists it as a weak match instead).
   */
  floors: RelevanceFloors;
  alphas: Record<BoostName, number>;
  armFloors: Record<ArmName, number>;
  armTimeoutsMs: Record<ArmName, number>;
  /** Temporal phrase extraction (RECALL_TEMPORAL) and the temporal arm (RECALL_TEMPORAL_ARM). */
  temporalEnabled: boolean;
  temporalArm: boolean;
  graphArm: boolean;
  crossEncoder: boolean;
  mmr: boolean;
  mmrLambda: number;
  fuzzyCache: boolean;
  fuzzyThreshold: number;
  cacheTtlSec: number;
  gapLog: boolean;
  followup: boolean;
  followupWindowSec: number;
  economics: boolean;
  includeSuperseded: boolean;
  scope: {
    globalLearningsPath: string | null;
    learningsRoot: string;
    global: boolean;
    allBranches: boolean;
    branch: string | null;
    projectDir: string | null;
  };
  dbPath: string;
  /** Model files (REFLECT_MODELS_DIR, default <state dir>/models) and ids (REFLECT_CE_MODEL, REFLECT_EMBED_MODEL). */
  modelsDir: string;
  ceModel: string;
  embedModel: string;
  /** REFLECT_NO_DAEMON=1 loads models in the recall process instead of the shared daemon. */
  noDaemon: boolean;
  /** Seconds a daemon waits idle before exiting (REFLECT_IDLE_TIMEOUT; 0 = never). */
  idleTimeoutSec: number;
  /** Cross-encoder and embedding stage budgets (RECALL_CE_TIMEOUT, RECALL_EMBED_TIMEOUT, seconds). */
  ceTimeoutMs: number;
  embedTimeoutMs: number;
  /** Token budgets per model input (RECALL_CE_MAX_TOKENS per query+note pair, RECALL_EMBED_MAX_TOKENS per text). */
  ceMaxTokens: number;
  embedMaxTokens: number;
  mode: string | null;
  modesDir: string | null;
  metricsPath: string;
  /** Follow KB symlinks whose target is outside the KB root (RECALL_FOLLOW_OUTSIDE_LINKS=1; off). */
  followOutsideLinks: boolean;
  /** Size at which a log (recall log, gap log, metrics, hook logs) is rotated to `<name>.1` (RECALL_LOG_MAX_MB). */
  logMaxBytes: number;
  /** Fleet-import ledger read for note provenance (RECALL_FLEET_LEDGER, default <state dir>/fleet-ledger.json). */
  fleetLedger: string;
  sessionId: string | null;
  /** One line per malformed value, naming the variable, the value and the default used. */
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

export type FloorCaller = 'cli' | 'sessionStart' | 'userPrompt' | 'subagent';
export type RelevanceFloors = Record<FloorCaller, number>;

/**
 * Env name and default of each caller's relevance floor. 0.5 is where the calibrated estimate says
 * "more likely about the query than not"; on the labelled sets it keeps every in-domain prompt and
 * silences almost every off-topic one (README, "Relevance and abstention"). SessionStart's query is a
 * bag of project, branch and commit words, most of which a relevant note does not repeat, so its
 * floor sits lower; it also keeps the minimum term overlap gate.
 */
export const FLOOR_SETTINGS: Readonly<Record<FloorCaller, { env: string; def: number }>> = {
  cli: { env: 'RECALL_FLOOR', def: 0.5 },
  sessionStart: { env: 'RECALL_FLOOR_SESSION_START', def: 0.4 },
  userPrompt: { env: 'RECALL_FLOOR_USER_PROMPT', def: 0.5 },
  subagent: { env: 'RECALL_FLOOR_SUBAGENT', def: 0.5 },
};

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

class EnvReader {
  readonly warnings: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  /** A number in [min, max]; out-of-range values are clamped, junk falls back with a warning. */
  num(name: string, def: number, min: number, max: number, opts: { integer?: boolean; strict?: boolean } = {}): number {
    const v = this.raw(name);
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n))) {
      this.warnings.push(`${name}=${JSON.stringify(v)} is not a valid ${opts.integer ? 'integer' : 'number'}; using ${def}`);
      return def;
    }
    if (opts.strict && (n < min || n > max)) {
      this.warnings.push(`${name}=${JSON.stringify(v)} is outside ${min}..${max}; using ${def}`);
      return def;
    }
    return Math.min(max, Math.max(min, n));
  }

  /** One of a fixed set of words (case-insensitive); anything else falls back with a warning. */
  oneOf<T extends string>(name: string, values: readonly T[], def: T): T {
    const v = this.raw(name)?.toLowerCase();
    if (v === undefined) return def;
    if ((values as readonly string[]).includes(v)) return v as T;
    this.warnings.push(`${name}=${JSON.stringify(v)} is not one of ${values.join(', ')}; using ${def}`);
    return def;
  }

  /** Switch that is on unless set to exactly "0" (the reference's convention for RECALL_* toggles). */
  onUnlessZero(name: string): boolean {
    return this.raw(name) !== '0';
  }

  flag(name: string): boolean {
    const v = this.raw(name);
    return v !== undefined && TRUTHY.has(v.toLowerCase());
  }
}

export function loadConfig(env: Env = process.env): RecallConfig {
  const r = new EnvReader(env);
  const home = r.raw('HOME') ?? os.homedir();
  const expand = (p: string): string => (p.startsWith('~/') ? path.join(home, p.slice(2)) : p);
  const stateDir = path.resolve(expand(r.raw('REFLECT_STATE_DIR') ?? path.join(home, '.reflect')));

  const alphas = {} as Record<BoostName, number>;
  for (const [name, { env: key, def }] of Object.entries(BOOST_ALPHAS) as [BoostName, { env: string; def: number }][]) {
    alphas[name] = r.num(key, def, 0, 2);
  }
  const floors = {} as RelevanceFloors;
  for (const [caller, { env: key, def }] of Object.entries(FLOOR_SETTINGS) as [FloorCaller, { env: string; def: number }][]) {
    // Out of range is malformed, not clamped: -1 would switch abstention off, 2 would silence recall.
    floors[caller] = r.num(key, def, 0, 1, { strict: true });
  }
  const armFloors = {} as Record<ArmName, number>;
  const armTimeoutsMs = {} as Record<ArmName, number>;
  for (const arm of ARM_NAMES) {
    armFloors[arm] = r.num(`RECALL_ARM_${arm.toUpperCase()}_MIN_SCORE`, 0, 0, 1);
    armTimeoutsMs[arm] = Math.round(r.num(`RECALL_${arm.toUpperCase()}_TIMEOUT`, ARM_TIMEOUT_DEFAULTS[arm], 0.01, 3600) * 1000);
  }
  const branchRaw = env['RECALL_BRANCH'];
  return {
    home,
    engine: r.oneOf('RECALL_ENGINE', ['auto', 'embedded', 'reflect'] as const, 'auto'),
    bm25Engine: r.oneOf('RECALL_BM25_ENGINE', ['auto', 'embedded', 'qmd'] as const, 'auto'),
    qmdCollection: r.raw('RECALL_QMD_COLLECTION') ?? 'learnings',
    path: env['PATH'] ?? '',
    stateDir,
    debug: r.raw('REFLECT_RECALL_DEBUG') !== undefined && r.raw('REFLECT_RECALL_DEBUG') !== '0',
    defaultLimit: r.num('REFLECT_RECALL_LIMIT', 10, 1, 1000, { integer: true }),
    defaultMaxChars: r.num('REFLECT_RECALL_MAX_CHARS', 2000, 0, 10_000_000, { integer: true }),
    // REFLECT_RECALL_MIN_OVERLAP is the SessionStart hook's knob (seed); recall's own default stays 0.
    defaultMinOverlap: 0,
    floors,
    alphas,
    armFloors,
    armTimeoutsMs,
    temporalEnabled: r.onUnlessZero('RECALL_TEMPORAL'),
    temporalArm: r.onUnlessZero('RECALL_TEMPORAL_ARM'),
    graphArm: r.onUnlessZero('RECALL_GRAPH_ARM'),
    crossEncoder: r.onUnlessZero('RECALL_CROSS_ENCODER'),
    mmr: r.onUnlessZero('RECALL_MMR'),
    mmrLambda: r.num('RECALL_MMR_LAMBDA', 0.7, 0, 1),
    fuzzyCache: r.onUnlessZero('RECALL_FUZZY_CACHE'),
    fuzzyThreshold: r.num('RECALL_FUZZY_THRESHOLD', 0.85, 0, 1),
    cacheTtlSec: r.num('RECALL_CACHE_TTL', 3600, 0, 365 * 86400),
    gapLog: r.onUnlessZero('RECALL_GAP_LOG'),
    followup: r.onUnlessZero('RECALL_FOLLOWUP'),
    followupWindowSec: r.num('RECALL_FOLLOWUP_WINDOW_SECONDS', 30, 1, 86400),
    economics: r.onUnlessZero('RECALL_ECONOMICS'),
    includeSuperseded: r.flag('REFLECT_RECALL_INCLUDE_SUPERSEDED'),
    scope: {
      globalLearningsPath: r.raw('GLOBAL_LEARNINGS_PATH') ? path.resolve(expand(r.raw('GLOBAL_LEARNINGS_PATH')!)) : null,
      learningsRoot: path.resolve(expand(r.raw('RECALL_LEARNINGS_ROOT') ?? path.join(home, '.learnings'))),
      global: r.flag('RECALL_GLOBAL'),
      allBranches: r.flag('RECALL_ALL_BRANCHES'),
      // RECALL_BRANCH is honoured even when set to empty (= trunk), as in the reference.
      branch: branchRaw === undefined ? null : branchRaw,
      projectDir: r.raw('CLAUDE_PROJECT_DIR') ?? null,
    },
    dbPath: path.resolve(expand(r.raw('REFLECT_DB_PATH') ?? path.join(stateDir, 'reflect.db'))),
    modelsDir: path.resolve(expand(r.raw('REFLECT_MODELS_DIR') ?? path.join(stateDir, 'models'))),
    ceModel: r.raw('REFLECT_CE_MODEL') ?? 'cross-encoder/ms-marco-MiniLM-L-6-v2',
    embedModel: r.raw('REFLECT_EMBED_MODEL') ?? 'sentence-transformers/all-mpnet-base-v2',
    noDaemon: r.flag('REFLECT_NO_DAEMON'),
    idleTimeoutSec: r.num('REFLECT_IDLE_TIMEOUT', 1800, 0, 7 * 86400),
    ceTimeoutMs: Math.round(r.num('RECALL_CE_TIMEOUT', 60, 0.01, 3600) * 1000),
    embedTimeoutMs: Math.round(r.num('RECALL_EMBED_TIMEOUT', 60, 0.01, 3600) * 1000),
    // 96 tokens keep a 20-pair rerank near 300 ms on 2 CPU cores with a MiniLM-L6 cross-encoder
    // (measured: 128 → 430 ms, 256 → 1.0 s); title and key insight come first in what models read.
    ceMaxTokens: r.num('RECALL_CE_MAX_TOKENS', 96, 16, 512, { integer: true }),
    embedMaxTokens: r.num('RECALL_EMBED_MAX_TOKENS', 256, 16, 512, { integer: true }),
    mode: r.raw('REFLECT_MODE') ?? null,
    modesDir: r.raw('REFLECT_MODES_DIR') ? path.resolve(expand(r.raw('REFLECT_MODES_DIR')!)) : null,
    // Under the state dir (owner-only, scrubbed, rotated like every other log), not in a shared KB folder.
    metricsPath: path.resolve(expand(r.raw('REFLECT_METRICS_PATH') ?? path.join(stateDir, 'metrics.jsonl'))),
    followOutsideLinks: r.flag('RECALL_FOLLOW_OUTSIDE_LINKS'),
    logMaxBytes: Math.round(r.num('RECALL_LOG_MAX_MB', 20, 0.01, 100_000) * 1048576),
    fleetLedger: path.resolve(expand(r.raw('RECALL_FLEET_LEDGER') ?? path.join(stateDir, 'fleet-ledger.json'))),
    sessionId: r.raw('CLAUDE_SESSION_ID') ?? null,
    warnings: r.warnings,
  };
}
