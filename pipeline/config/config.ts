/**
 * The one module that reads the environment. It parses, normalises and validates every knob into a
 * typed object; a malformed value never throws: it becomes a warning and the default is used.
 *
 * Precedence: CLI flags (applied by the CLI on top of this) > environment > defaults.
 */
import os from 'node:os';
import path from 'node:path';

import { ARM_NAMES, type ArmName, type BoostName } from '../../core/types.js';
import { type Env, SettingsReader, numberDefault } from '../../core/settings/index.js';
import { resolveStateDir } from '../../core/state-dir.js';
import type { ModelSettings } from '../../sources/models/index.js';

export type { Env } from '../../core/settings/index.js';

/** Env name of each bounded boost's alpha (clamped to 0..2); defaults are in the settings list. */
const BOOST_ENVS: Readonly<Record<BoostName, string>> = {
  confidence: 'RECALL_CONFIDENCE_ALPHA',
  recency: 'RECALL_RECENCY_ALPHA',
  tags: 'RECALL_TAG_ALPHA',
  proof: 'RECALL_PROOF_ALPHA',
  project: 'RECALL_PROJECT_ALPHA',
  domain: 'RECALL_DOMAIN_ALPHA',
  authority: 'RECALL_AUTHORITY_ALPHA',
  speculative: 'RECALL_SPECULATIVE_ALPHA',
};

/** Env name and default alpha of each bounded boost. */
export const BOOST_ALPHAS: Readonly<Record<BoostName, { env: string; def: number }>> = mapValues(BOOST_ENVS, (env) => ({
  env,
  def: numberDefault(env),
}));

function mapValues<K extends string, A, B>(o: Readonly<Record<K, A>>, f: (a: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v as A)])) as Record<K, B>;
}

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
  /** Weight of a lexical match's episode context (RECALL_EPISODE_WEIGHT; sources/index/lookups.ts). */
  episodeWeight: number;
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
  /** Search the pulled team shard (RECALL_TEAM_NOTES); off drops its notes from this recall only, the index keeps them. */
  teamNotes: boolean;
  /** Query the team store live as one more arm (RECALL_TEAM_ARM); only then does a recall read the team store's settings. */
  teamArm: boolean;
  scope: {
    globalLearningsPath: string | null;
    learningsRoot: string;
    global: boolean;
    allBranches: boolean;
    branch: string | null;
    projectDir: string | null;
    /** RECALL_KBS: KBs read together instead of the scope rules (absolute; empty = unset). */
    kbs: string[];
  };
  /** What a recall reads when no KB is configured (pipeline/kb-sources). */
  sources: {
    /** RECALL_LEARNINGS_KB: the reflect KB the scope rules choose. */
    learnings: boolean;
    /** RECALL_CLAUDE_MEMORY: the project's Claude Code memory folder. */
    claudeMemory: boolean;
    /** RECALL_CODEX_MEMORY: Codex's memories store. */
    codexMemory: boolean;
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

export type FloorCaller = 'cli' | 'sessionStart' | 'userPrompt' | 'subagent';
export type RelevanceFloors = Record<FloorCaller, number>;

/**
 * Env name and default of each caller's relevance floor. 0.5 is where the calibrated estimate says
 * "more likely about the query than not"; on the labelled sets it keeps every in-domain prompt and
 * silences almost every off-topic one (README, "Relevance and abstention"). SessionStart's query is a
 * bag of project, branch and commit words, most of which a relevant note does not repeat, so its
 * floor sits lower; it also keeps the minimum term overlap gate. The prompt hook's floor sits lower
 * still (0.3): a prompt of a few sentences always carries words a one-line note lacks, and the hook
 * gives at most one learning under 0.5 (hooks/registry.ts, LIKELY_RELEVANCE).
 */
export const FLOOR_SETTINGS: Readonly<Record<FloorCaller, { env: string; def: number }>> = mapValues(
  {
    cli: 'RECALL_FLOOR',
    sessionStart: 'RECALL_FLOOR_SESSION_START',
    userPrompt: 'RECALL_FLOOR_USER_PROMPT',
    subagent: 'RECALL_FLOOR_SUBAGENT',
  },
  (env) => ({ env, def: numberDefault(env) }),
);

/** Paths in settings may start with `~/` (home) or `$REFLECT_STATE_DIR/`; the result is absolute. */
function pathResolver(home: string, stateDir: string | null) {
  return (p: string): string => {
    if (p.startsWith('~/')) return path.resolve(path.join(home, p.slice(2)));
    if (stateDir !== null && p.startsWith('$REFLECT_STATE_DIR/'))
      return path.resolve(path.join(stateDir, p.slice('$REFLECT_STATE_DIR/'.length)));
    return path.resolve(p);
  };
}

function readBoostsAndFloors(r: SettingsReader): Pick<RecallConfig, 'alphas' | 'floors'> {
  // A floor out of range is refused, as every setting is (core/settings/reader.ts): -1 would switch
  // abstention off, 2 would silence recall.
  return { alphas: mapValues(BOOST_ENVS, (env) => r.number(env)), floors: mapValues(FLOOR_SETTINGS, ({ env }) => r.number(env)) };
}

function readArms(r: SettingsReader): Pick<RecallConfig, 'armFloors' | 'armTimeoutsMs'> {
  const armFloors = {} as Record<ArmName, number>;
  const armTimeoutsMs = {} as Record<ArmName, number>;
  for (const arm of ARM_NAMES) {
    armFloors[arm] = r.number(`RECALL_ARM_${arm.toUpperCase()}_MIN_SCORE`);
    armTimeoutsMs[arm] = Math.round(r.number(`RECALL_${arm.toUpperCase()}_TIMEOUT`) * 1000);
  }
  return { armFloors, armTimeoutsMs };
}

/** The switches and numbers of the ranking stages, the cache and the diagnostics. */
function readStages(r: SettingsReader) {
  return {
    temporalEnabled: r.bool('RECALL_TEMPORAL'),
    temporalArm: r.bool('RECALL_TEMPORAL_ARM'),
    graphArm: r.bool('RECALL_GRAPH_ARM'),
    episodeWeight: r.number('RECALL_EPISODE_WEIGHT'),
    crossEncoder: r.bool('RECALL_CROSS_ENCODER'),
    mmr: r.bool('RECALL_MMR'),
    mmrLambda: r.number('RECALL_MMR_LAMBDA'),
    fuzzyCache: r.bool('RECALL_FUZZY_CACHE'),
    fuzzyThreshold: r.number('RECALL_FUZZY_THRESHOLD'),
    cacheTtlSec: r.number('RECALL_CACHE_TTL'),
    gapLog: r.bool('RECALL_GAP_LOG'),
    followup: r.bool('RECALL_FOLLOWUP'),
    followupWindowSec: r.number('RECALL_FOLLOWUP_WINDOW_SECONDS'),
    economics: r.bool('RECALL_ECONOMICS'),
    includeSuperseded: r.bool('REFLECT_RECALL_INCLUDE_SUPERSEDED'),
    teamNotes: r.bool('RECALL_TEAM_NOTES'),
    teamArm: r.bool('RECALL_TEAM_ARM'),
  };
}

function readModels(r: SettingsReader, resolve: (p: string) => string) {
  return {
    modelsDir: resolve(r.text('REFLECT_MODELS_DIR')!),
    ceModel: r.text('REFLECT_CE_MODEL')!,
    embedModel: r.text('REFLECT_EMBED_MODEL')!,
    noDaemon: r.bool('REFLECT_NO_DAEMON'),
    idleTimeoutSec: r.number('REFLECT_IDLE_TIMEOUT'),
    ceTimeoutMs: Math.round(r.number('RECALL_CE_TIMEOUT') * 1000),
    embedTimeoutMs: Math.round(r.number('RECALL_EMBED_TIMEOUT') * 1000),
    // 96 tokens keep a 20-pair rerank near 300 ms on 2 CPU cores with a MiniLM-L6 cross-encoder
    // (measured: 128 → 430 ms, 256 → 1.0 s); title and key insight come first in what models read.
    ceMaxTokens: r.number('RECALL_CE_MAX_TOKENS'),
    embedMaxTokens: r.number('RECALL_EMBED_MAX_TOKENS'),
  };
}

function readScope(r: SettingsReader, env: Env, resolve: (p: string) => string): RecallConfig['scope'] {
  const branchRaw = env['RECALL_BRANCH'];
  const kb = r.text('GLOBAL_LEARNINGS_PATH');
  return {
    globalLearningsPath: kb !== null ? resolve(kb) : null,
    learningsRoot: resolve(r.text('RECALL_LEARNINGS_ROOT')!),
    global: r.bool('RECALL_GLOBAL'),
    allBranches: r.bool('RECALL_ALL_BRANCHES'),
    // RECALL_BRANCH is honoured even when set to empty (= trunk), as in the reference.
    branch: branchRaw === undefined ? null : branchRaw,
    projectDir: r.raw('CLAUDE_PROJECT_DIR') ?? null,
    kbs: (r.text('RECALL_KBS') ?? '')
      .split(path.delimiter)
      .map((p) => p.trim())
      .filter(Boolean)
      .map(resolve),
  };
}

/** What the model stores and the model daemon need of the settings (one shape for every caller). */
export function modelSettings(config: RecallConfig): ModelSettings {
  const { modelsDir, ceModel, embedModel, ceMaxTokens, embedMaxTokens } = config;
  return { modelsDir, ceModel, embedModel, ceMaxTokens, embedMaxTokens };
}

export function loadConfig(env: Env = process.env): RecallConfig {
  const r = new SettingsReader(env);
  const home = r.raw('HOME') ?? os.homedir();
  const stateDir = resolveStateDir(home, r.text('REFLECT_STATE_DIR'));
  const resolve = pathResolver(home, stateDir);
  const modesDir = r.text('REFLECT_MODES_DIR');
  return {
    home,
    engine: r.choice<VectorGraphEngine>('RECALL_ENGINE'),
    bm25Engine: r.choice<Bm25Engine>('RECALL_BM25_ENGINE'),
    qmdCollection: r.text('RECALL_QMD_COLLECTION')!,
    path: env['PATH'] ?? '',
    stateDir,
    // Any value but 0 switches debugging on (as --verbose does).
    debug: r.raw('REFLECT_RECALL_DEBUG') !== undefined && r.raw('REFLECT_RECALL_DEBUG') !== '0',
    defaultLimit: r.number('REFLECT_RECALL_LIMIT'),
    defaultMaxChars: r.number('REFLECT_RECALL_MAX_CHARS'),
    // REFLECT_RECALL_MIN_OVERLAP is the session-start hook's knob; recall's own default stays 0.
    defaultMinOverlap: 0,
    ...readBoostsAndFloors(r),
    ...readArms(r),
    ...readStages(r),
    scope: readScope(r, env, resolve),
    sources: {
      learnings: r.bool('RECALL_LEARNINGS_KB'),
      claudeMemory: r.bool('RECALL_CLAUDE_MEMORY'),
      codexMemory: r.bool('RECALL_CODEX_MEMORY'),
    },
    dbPath: resolve(r.text('REFLECT_DB_PATH')!),
    ...readModels(r, resolve),
    mode: r.text('REFLECT_MODE'),
    modesDir: modesDir !== null ? resolve(modesDir) : null,
    // Under the state dir (owner-only, scrubbed, rotated like every other log), not in a shared KB folder.
    metricsPath: resolve(r.text('REFLECT_METRICS_PATH')!),
    followOutsideLinks: r.bool('RECALL_FOLLOW_OUTSIDE_LINKS'),
    logMaxBytes: Math.round(r.number('RECALL_LOG_MAX_MB') * 1048576),
    fleetLedger: resolve(r.text('RECALL_FLEET_LEDGER')!),
    sessionId: r.raw('CLAUDE_SESSION_ID') ?? null,
    warnings: r.warnings,
  };
}
