/**
 * Library entry points behind the CLI (and, later, the hooks): resolve the KB, refresh the index,
 * run the recall pipeline once, render, and do the bookkeeping (logs, gaps, follow-up).
 *
 * Nothing here writes to stdout or exits: results are returned to the caller.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import { loadConfig, type RecallConfig } from './config.js';
import { detectProject, isShard, resolveScope, type Scope } from './scope.js';
import { recall$, type RecallDeps, type RecallMode, type RecallRequest } from './recall.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { embedMissing } from '../sources/models/embed-notes.js';
import { indexGeneration } from '../sources/index-store.js';
import { resolveEngines } from './engines.js';
import { UsageError, errorMessage } from './errors.js';
import { hasMarkdown, kbLayout } from '../sources/kb-walk.js';
import type { Degradation, RecallOutcome } from './types.js';
import type { TraceSink } from '../operators/trace-stage.js';
import type { ConfidenceFloor } from '../operators/filter-confidence.js';
import { classifyDbError, closeIndex, countNotes, linkedNotes, markSuspect, notesInWindow, openIndex, rebuildIndex, refreshIndex, setBusyTimeout, termStats, type IndexHandle, type RefreshReport } from '../sources/index-store.js';
import { refreshLockHolder, refreshWithin, tryRefreshLock } from '../sources/index-refresh.js';
import { infoOf, wordCounts } from '../sources/word-info.js';
import { expandQuery, expansionsAvailable } from '../sources/word-expansion.js';
import { queryTerms } from '../operators/math/stems.js';
import { STOPWORDS } from '../operators/math/terms.js';
import { openLedger } from '../sources/ledger.js';
import { openKbIndex } from './kb-index.js';
import { loadTeamSettings } from '../sources/team-settings.js';
import { teamLiveArm } from '../sources/team-arm.js';
import { mayContainDate } from '../sources/date-precheck.js';
import type { TemporalConstraint } from '../sources/temporal-constraint.js';
import { fieldValue, renderMarkdown, renderWeak } from '../sinks/render-markdown.js';
import { renderJson } from '../sinks/render-json.js';
import { renderFleetContext } from '../sinks/render-fleet-context.js';
import { blockEconomics } from '../sinks/economics.js';
import { loadGlyphs } from '../sinks/modes.js';
import { logGap, logRecall, recordFollowup } from '../sinks/recall-log.js';
import { ensurePrivateDir } from '../sinks/atomic-write.js';

/** Callers open a KB's index through run.js (stages, trace, team). */
export { openKbIndex } from './kb-index.js';

/**
 * An entity mentioned by at most max(3, 1% of the live notes) notes is specific enough for two notes
 * that share it to count as related (the relevance estimate's entity links).
 */
const LINK_HUB_MIN_NOTES = 3;
const LINK_HUB_FRACTION = 0.01;

/** WordNet-related words for a query's specific words (none when the word counts or the table are missing). */
function relatedForQuery(query: string): string[] {
  try {
    const counts = wordCounts();
    const raw = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
    return expandQuery(queryTerms(query), raw, (stem) => infoOf(counts, stem));
  } catch {
    return [];
  }
}

/** Document frequencies in this KB's index and everyday-English weights of the given stems; each side fails on its own. */
function weighTerms(index: IndexHandle, stems: readonly string[]): { live: number; df: Map<string, number> | Error; info: Map<string, number> | Error } {
  let live = 1;
  let df: Map<string, number> | Error;
  try {
    const s = termStats(index, stems);
    live = s.live;
    df = s.df;
  } catch (err) {
    df = err instanceof Error ? err : new Error(String(err));
  }
  let info: Map<string, number> | Error;
  try {
    const counts = wordCounts();
    info = new Map(stems.map((s) => [s, infoOf(counts, s)]));
  } catch (err) {
    info = err instanceof Error ? err : new Error(String(err));
  }
  return { live, df, info };
}

export type OutputFormat = 'markdown' | 'json' | 'fleet-context';

export interface RecallCommand {
  query: string;
  limit?: number;
  mode: RecallMode;
  confidence: ConfidenceFloor;
  format: OutputFormat;
  field: string | null;
  tags: string[];
  domainHint: string;
  minOverlap?: number;
  /** Relevance floor (0..1, 0 = off); default: the CLI's (RECALL_FLOOR). */
  floor?: number;
  /** Show candidates under the floor as weak matches (the CLI's default); hooks never do. */
  showWeak?: boolean;
  maxTokens: number;
  maxChars?: number;
  cache: boolean;
  cacheTtl?: number;
  includeQuarantined?: boolean;
  mmr: boolean;
  mmrLambda?: number;
  global: boolean;
  allBranches: boolean;
  kb: string | null;
  /** Every `--kb` when several are searched together (the first is `kb`); absent for one KB. */
  kbs?: string[];
  sessionId: string | null;
  gapLog: boolean;
  followup: boolean;
  verbose: boolean;
}

/**
 * A recall request with every option at its default (markdown, any confidence, cache on, logs on):
 * callers spread it and set what differs.
 */
export const DEFAULT_COMMAND: Readonly<RecallCommand> = {
  query: '',
  mode: 'naive',
  confidence: 'ANY',
  format: 'markdown',
  field: null,
  tags: [],
  domainHint: '',
  maxTokens: 0,
  cache: true,
  mmr: true,
  global: false,
  allBranches: false,
  kb: null,
  sessionId: null,
  gapLog: true,
  followup: true,
  verbose: false,
};

export interface RunIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  now?: () => number;
  models?: ModelClient;
  /** Diagnostics sink (stderr in the CLI). */
  warn: (line: string) => void;
}

export interface RunResult {
  /** What goes to stdout ('' = nothing). */
  stdout: string;
  outcome: RecallOutcome | null;
  scope: Scope;
  refresh: RefreshReport | null;
}

/**
 * A caller with a deadline (a hook) refreshes the index for at most this long, and at most half
 * the time left: a harness may kill a hook long before its own deadline, and what the refresh
 * cannot do by then is handed to a detached background refresher early enough to survive that
 * kill. Small edits take milliseconds; a cold 20k-note KB takes ~10 s and goes to the background.
 */
const REFRESH_BUDGET_MS = 1000;
const REFRESH_SHARE = 0.5;

/** An opened, refreshed index for a session; `release` (when given) replaces closing it. */
export interface ScopedIndex {
  index: IndexHandle;
  refresh: RefreshReport;
  degraded: Degradation[];
  release?: () => void;
}

export type IndexOpener = (config: RecallConfig, scope: Scope, io: RunIo, verbose: boolean, deadlineMs: number | undefined, now: () => number) => ScopedIndex;

function openScopedIndex(config: RecallConfig, scope: Scope, io: RunIo, verbose: boolean, deadlineMs: number | undefined, now: () => number): ScopedIndex {
  return refreshScoped(openKbIndex(config, scope.root, io.env), io, verbose, deadlineMs, now);
}

/**
 * How sessions get their index. A one-shot process opens and refreshes it every time; the recall
 * server swaps in an opener that keeps indexes open and refreshes only what its file watcher saw change.
 */
let indexOpener: IndexOpener = openScopedIndex;
export function setIndexOpener(opener: IndexOpener | null): void {
  indexOpener = opener ?? openScopedIndex;
}

/** Refresh an opened index the way every recall does (bounded by the caller's deadline). */
export function refreshScoped(index: IndexHandle, io: RunIo, verbose: boolean, deadlineMs: number | undefined, now: () => number): ScopedIndex {
  const degraded: Degradation[] = [];
  if (index.fallbackReason) {
    io.warn(`recall: ${index.fallbackReason}`);
    degraded.push({ stage: 'index', reason: 'error', message: index.fallbackReason });
  }
  const t = now();
  const out = refreshWithin(index, {
    problems: verbose,
    ...(deadlineMs !== undefined ? { deadlineMs: t + Math.min(REFRESH_BUDGET_MS, Math.max(0, deadlineMs - t) * REFRESH_SHARE) } : {}),
    backgroundEnv: io.env,
    now,
  });
  for (const n of out.notices) degraded.push({ stage: 'index', reason: out.report.complete || out.background ? 'unavailable' : 'error', message: n });
  if (verbose) for (const p of out.report.problems) io.warn(`recall: skipped ${p.rel}: ${p.message}`);
  return { index, refresh: out.report, degraded };
}

/** A degradation that says the index itself failed with corruption (the next open checks and heals it). */
const corruptionSeen = (degraded: readonly Degradation[]): boolean =>
  degraded.some((d) => d.stage !== 'index' && classifyDbError({ message: d.message }) === 'corrupt');

/**
 * Characters of a query searched for date phrases: a pasted 500 KB log would make the date grammar
 * (and chrono) run for seconds, and a date phrase worth honouring comes early in a prompt.
 */
const DATE_SCAN_CHARS = 4000;

async function temporalExtractor(query: string, enabled: boolean): Promise<(q: string) => TemporalConstraint | null> {
  if (!enabled || !mayContainDate(query.slice(0, DATE_SCAN_CHARS))) return () => null;
  const { extractTemporal } = await import('../sources/temporal-grammar.js');
  return (q) => extractTemporal(q.slice(0, DATE_SCAN_CHARS));
}

/** Schema of recall_log.jsonl lines written here (lines without `v` are the reference's v1). */
export const RECALL_LOG_VERSION = 2;

/** The knobs that change a ranking, as recorded with each logged recall. */
export function settingsInForce(config: RecallConfig): Record<string, unknown> {
  return {
    alphas: config.alphas,
    armFloors: config.armFloors,
    engine: config.engine,
    bm25Engine: config.bm25Engine,
    graphArm: config.graphArm,
    temporalArm: config.temporalArm,
    crossEncoder: config.crossEncoder,
    mmr: config.mmr,
    mmrLambda: config.mmrLambda,
    includeSuperseded: config.includeSuperseded,
    ceModel: config.ceModel,
    embedModel: config.embedModel,
  };
}

/** Notes embedded per recall at most; the rest wait for `recall index` (a hook must stay fast). */
const EMBED_PER_RECALL = 32;

/** Embed notes added or edited since the last run (bounded); a failure or a backlog is a degradation. */
async function embedNewNotes(index: IndexHandle, models: ModelClient, config: RecallConfig, budgetMs = Infinity): Promise<Degradation | null> {
  if (!models.models.embed || index.file === ':memory:') return null;
  try {
    const report = await embedMissing(index, models, { max: EMBED_PER_RECALL, budgetMs: Math.max(1, Math.min(config.embedTimeoutMs, budgetMs)) });
    return report.remaining > 0
      ? { stage: 'vector-index', reason: 'unavailable', message: `${report.remaining} notes have no vector yet (run \`recall index\`)` }
      : null;
  } catch (err) {
    return { stage: 'vector-index', reason: 'error', message: `embedding new notes failed: ${errorMessage(err)}` };
  }
}

/** Cache validity stamp: index generation, plus the reflect index's mtime when reflect serves an arm. */
function cacheStamp(generation: number, engines: ReturnType<typeof resolveEngines>, root: string): string {
  if (engines.vectorGraph.kind !== 'reflect') return String(generation);
  let mtime = 0;
  try {
    mtime = fs.statSync(path.join(root, 'nano_graphrag_cache')).mtimeMs;
  } catch {
    /* no reflect index */
  }
  return `${generation}:${mtime}`;
}

/**
 * An explicit `--kb` must be a folder holding a KB: a reflect KB (documents/ or archived/) or any
 * folder with markdown files in it. `allowEmpty` accepts an empty folder (a KB about to be written).
 */
export function checkKbDir(kb: string, cwd: string, opts: { allowEmpty?: boolean } = {}): void {
  const abs = path.resolve(cwd, kb);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new UsageError(`--kb ${kb}: no such directory`);
  }
  if (!st.isDirectory()) throw new UsageError(`--kb ${kb}: not a directory`);
  if (!opts.allowEmpty && kbLayout(abs) === 'flat' && !hasMarkdown(abs)) {
    throw new UsageError(`--kb ${kb}: not a KB (no documents/ folder and no markdown files)`);
  }
}

/** Degradations as --verbose prints them: real failures first, one line each; missing models on one line at the end. */
export function degradationLines(degraded: readonly Degradation[]): string[] {
  const notInstalled = degraded.filter((d) => d.reason === 'unavailable' && /recall models pull/.test(d.message));
  const rest = degraded.filter((d) => !notInstalled.includes(d));
  const lines = rest.map((d) => `recall: degraded ${d.stage} (${d.reason}): ${d.message}`);
  if (notInstalled.length) lines.push(`recall: no model for ${notInstalled.map((d) => d.stage.replace(/^arm:/, '')).join(', ')} (optional; \`recall models pull\` installs them)`);
  return lines;
}

/**
 * An opened KB: scope resolved, index refreshed, engines and models chosen, new notes embedded —
 * once — so that several recalls (a hook's probe and main recall) share that work.
 */
export interface RecallSession {
  readonly config: RecallConfig;
  readonly scope: Scope;
  readonly refresh: RefreshReport;
  /** Live notes in the KB (0 = nothing to recall). */
  readonly liveNotes: number;
  run(cmd: RecallCommand, opts?: RunOptions): Promise<RunResult>;
  /** Glyphs of the active mode (loaded once). */
  glyphs(): Map<string, string>;
  close(): void;
}

export interface RunOptions {
  deadlineMs?: number;
  /** Stage events as the recall runs (`recall trace`, `recall explain`). */
  trace?: TraceSink;
  /** Write no recall log, gap log or follow-up line (`recall replay`). */
  noLog?: boolean;
  /** Who asked (recorded in the recall log for replay): cli, a hook name, … */
  caller?: string;
}

export interface SessionOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
  verbose: boolean;
  /** Absolute time (epoch ms) by which everything must be done; work is budgeted against it. */
  deadlineMs?: number;
  /** The project for the affinity boost, when it is not the one of `cwd` (replay of a logged recall). */
  project?: string;
}

/** Longest a read statement waits for the index lock (SQLite busy timeout) when no deadline is nearer. */
const READ_BUSY_MS = 5000;

/** Time kept back from a deadline for rendering and writing the answer. */
const ANSWER_RESERVE_MS = 50;

export async function openSession(opts: SessionOptions, io: RunIo): Promise<RecallSession> {
  const config = loadConfig(io.env);
  const verbose = opts.verbose || config.debug;
  if (verbose) for (const w of config.warnings) io.warn(`recall: ${w}`);
  const now = io.now ?? Date.now;
  ensurePrivateDir(config.stateDir);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const scope = resolveScope(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd });
  if (verbose) io.warn(`recall: reading ${scope.root} (${scope.reason})`);
  const { index, refresh, degraded: indexDegraded, release } = indexOpener(config, scope, io, verbose, opts.deadlineMs, now);
  const closeOrRelease = release ?? ((): void => closeIndex(index));
  // Reading may wait for another process's lock longer than a refresh's write does (the wasm
  // driver's readers take turns with every other process), but never more than a quarter of what is
  // left before the deadline: a wait blocks the process, and the deadline timer with it.
  setBusyTimeout(index, opts.deadlineMs === undefined ? READ_BUSY_MS : Math.min(READ_BUSY_MS, Math.max(100, (opts.deadlineMs - now()) / 4)));
  let closed = false;
  try {
    // -1 when the count cannot be read (a lock held past the busy timeout, a damaged page): the
    // recall still runs and its arms say what failed, rather than reporting an empty KB.
    let liveNotes = -1;
    try {
      liveNotes = countNotes(index).live;
    } catch (err) {
      if (classifyDbError(err) === 'corrupt') markSuspect(index);
      indexDegraded.push({ stage: 'index', reason: 'error', message: `index unreadable: ${errorMessage(err)}` });
    }
    const engines = resolveEngines(config, scope.root);
    const models = io.models ?? createModelClient(config, io.env).client;
    const remaining = (): number => (opts.deadlineMs === undefined ? Infinity : opts.deadlineMs - now());
    const team = loadTeamSettings(io.env, config.stateDir);
    const teamArm = team.liveArm && team.url ? (q: string, limit: number, ms: number) => teamLiveArm(q, limit, team, ms, models) : undefined;
    const embedded = liveNotes > 0 ? await embedNewNotes(index, models, config, remaining() / 4) : null;
    const early = [...indexDegraded, ...(embedded ? [embedded] : [])];
    let project: string | null = null;
    const currentProject = (): string => (project ??= opts.project ?? (isShard(scope) ? '' : detectProject(config, io.cwd)));
    let glyphs: Map<string, string> | null = null;
    const glyphsOnce = (): Map<string, string> =>
      (glyphs ??= loadGlyphs({ mode: config.mode, modesDir: config.modesDir, projectDir: config.scope.projectDir, cwd: io.cwd }));

    const run = async (cmd: RecallCommand, runOpts: RunOptions = {}): Promise<RunResult> => {
      const verboseRun = verbose || cmd.verbose;
      if (liveNotes === 0) {
        const why = fs.existsSync(path.join(scope.root, 'documents'))
          ? `no learnings in ${path.join(scope.root, 'documents')}`
          : fs.existsSync(scope.root)
            ? `no learnings in ${scope.root}`
            : `no KB at ${scope.root} (${scope.reason}; \`recall add\` starts one, --kb DIR reads another)`;
        io.warn(`recall: ${why}; nothing to recall`);
        return { stdout: cmd.format === 'json' ? `${JSON.stringify({ query: cmd.query, count: 0, results: [], notice: why, kb: scopeJson(scope) }, null, 2)}\n` : '', outcome: null, scope, refresh };
      }
      if (cmd.mode === 'global' && engines.vectorGraph.kind !== 'reflect') {
        // Said whatever the verbosity: the user asked for something this installation cannot do.
        io.warn('recall: --mode global needs the reflect engine (community reports), which is not available here; answered from the other arms');
      }
      const format = cmd.format;
      const deadline = Math.min(runOpts.deadlineMs ?? Infinity, opts.deadlineMs ?? Infinity);
      // Without the index generation no cached fetch can be trusted: this run skips the cache.
      let generation: number | null = null;
      const runDegraded: Degradation[] = [];
      try {
        generation = indexGeneration(index);
      } catch (err) {
        if (classifyDbError(err) === 'corrupt') markSuspect(index);
        runDegraded.push({ stage: 'cache', reason: 'error', message: `index generation unreadable (${errorMessage(err)}); cache skipped` });
      }
      const req: RecallRequest = {
        query: cmd.query,
        limit: cmd.limit ?? config.defaultLimit,
        mode: cmd.mode,
        confidence: cmd.confidence,
        tags: cmd.tags,
        domainHint: cmd.domainHint.toLowerCase(),
        minOverlap: cmd.minOverlap ?? config.defaultMinOverlap,
        floor: cmd.floor ?? config.floors.cli,
        keepWeak: cmd.showWeak === true && format !== 'fleet-context',
        maxTokens: cmd.maxTokens,
        noCache: !cmd.cache || generation === null,
        cacheTtlSec: cmd.cacheTtl ?? config.cacheTtlSec,
        includeQuarantined: cmd.includeQuarantined ?? format === 'fleet-context',
        mmr: cmd.mmr && config.mmr,
        mmrLambda: cmd.mmrLambda ?? config.mmrLambda,
        ...(Number.isFinite(deadline) ? { deadlineMs: deadline - ANSWER_RESERVE_MS } : {}),
      };
      const deps: RecallDeps = {
        config,
        scope,
        index,
        indexGeneration: generation ?? -1,
        generation: cacheStamp(generation ?? -1, engines, scope.root),
        models,
        now,
        currentProject,
        ledger: () => openLedger(config.dbPath),
        extractTemporal: await temporalExtractor(cmd.query, config.temporalEnabled),
        weighTerms: (stems) => weighTerms(index, stems),
        expandQuery: (q) => relatedForQuery(q),
        hasNotesIn: (startMs, endMs) => notesInWindow(index, startMs, endMs, 1).length > 0,
        // An entity named by more notes than this is a hub (say "postgres") and links nothing.
        linkedNotes: (paths) => linkedNotes(index, paths, Math.max(LINK_HUB_MIN_NOTES, Math.ceil(liveNotes * LINK_HUB_FRACTION)), now()),
        engines,
        env: io.env,
        ...(runOpts.trace ? { trace: runOpts.trace } : {}),
        ...(teamArm ? { teamArm } : {}),
      };
      const fetched = await lastValueFrom(recall$(req, deps));
      if (corruptionSeen(fetched.degraded)) markSuspect(index);
      // Missing build data (an unbuilt or damaged install) degrades the lexical arm; say so.
      const dataGap: Degradation[] = expansionsAvailable()
        ? []
        : [{ stage: 'arm:bm25', reason: 'unavailable', message: 'related words unavailable (dist/data/wordnet-expand.tsv missing or unreadable): the lexical arm searches the query words only' }];
      const extra = [...early, ...runDegraded, ...dataGap];
      const outcome = extra.length ? { ...fetched, degraded: [...extra, ...fetched.degraded] } : fetched;
      if (verboseRun) for (const l of degradationLines(outcome.degraded)) io.warn(l);

      const g = config.economics || format === 'markdown' ? glyphsOnce() : new Map<string, string>();
      let stdout = '';
      if (outcome.persona) {
        stdout =
          format === 'json'
            ? renderJson(outcome, { field: cmd.field, economics: config.economics, glyphs: g, home: config.home, kb: scopeJson(scope) })
            : `${outcome.persona.field_name}: ${outcome.persona.value} (persona, confidence ${outcome.persona.confidence.toFixed(2)})\n`;
        return { stdout, outcome, scope, refresh };
      }
      if (format === 'json') stdout = renderJson(outcome, { field: cmd.field, economics: config.economics, glyphs: g, home: config.home, kb: scopeJson(scope) });
      else if (format === 'fleet-context') stdout = renderFleetContext(cmd.query, outcome.results);
      else
        stdout =
          renderMarkdown({
            query: cmd.query,
            results: outcome.results,
            field: cmd.field,
            maxChars: cmd.maxChars ?? config.defaultMaxChars,
            economics: config.economics,
            glyphs: g,
            home: config.home,
          }) + renderWeak(outcome.weak, outcome.floor, outcome.results.length > 0);
      if (outcome.abstained && format !== 'json') io.warn(`recall: nothing relevant enough to return (${outcome.abstained})`);
      if (cmd.field && format !== 'json') {
        const missing = fieldMissing(outcome.results, cmd.field);
        if (missing) io.warn(`recall: ${missing}`);
      }
      if (!runOpts.noLog) bookkeeping(cmd, config, outcome, g, now(), io.warn, verboseRun, runOpts.caller ?? 'cli', scope.root, currentProject());
      return { stdout, outcome, scope, refresh };
    };
    return {
      config,
      scope,
      refresh,
      liveNotes,
      run,
      glyphs: glyphsOnce,
      close: () => {
        if (!closed) closeOrRelease();
        closed = true;
      },
    };
  } catch (err) {
    closeOrRelease();
    throw err;
  }
}

/** The KB a recall read, as JSON output reports it. */
export function scopeJson(scope: Scope): { root: string; scope: string; reason: string; project: string; branch: string } {
  return { root: scope.root, scope: scope.kind, reason: scope.reason, project: scope.project, branch: scope.branch };
}

/**
 * `--field NAME` when no result has that field: the rows show their key insight instead, and the
 * user is told so (with the fields the results do have). null when some result has it.
 */
export function fieldMissing(results: readonly { note: import('../sources/note.js').Note }[], field: string): string | null {
  if (results.length === 0 || results.some((r) => fieldValue(r.note, field) !== null)) return null;
  const have = [...new Set(results.flatMap((r) => Object.keys(r.note.frontmatter)))].filter((k) => results.some((r) => fieldValue(r.note, k) !== null)).sort();
  return `no result has a "${field}" field; showing key insights instead (fields these results have: ${have.join(', ') || 'none'})`;
}

export async function runRecall(cmd: RecallCommand, io: RunIo): Promise<RunResult> {
  if (cmd.kbs && cmd.kbs.length > 1) {
    const { runMultiRecall } = await import('./multi-kb.js');
    return runMultiRecall(cmd, io);
  }
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: cmd.verbose }, io);
  try {
    return await session.run(cmd);
  } finally {
    session.close();
  }
}

export function bookkeeping(
  cmd: RecallCommand,
  config: RecallConfig,
  outcome: RecallOutcome,
  glyphs: Map<string, string>,
  nowMs: number,
  warn: (l: string) => void,
  verbose: boolean,
  caller: string,
  kbRoot: string,
  project: string,
): void {
  const problems: string[] = [];
  const ids = outcome.results.map((r) => r.note.displayId);
  // What `recall replay` needs to run this recall again: the request and the settings in force.
  const { verbose: _v, sessionId: _s, kb: _k, ...request } = cmd;
  const econ = config.economics ? blockEconomics(outcome.results.map((r) => r.note), glyphs, config.home) : null;
  const logErr = logRecall(
    config.stateDir,
    {
      query: cmd.query,
      mode: cmd.mode,
      count: outcome.results.length,
      cached: outcome.cacheTier !== null,
      cache_tier: outcome.cacheTier,
      ids,
      ms: Math.round(outcome.ms),
      degraded: outcome.degraded.map((d) => `${d.stage}:${d.reason}`),
      economics: econ,
      v: RECALL_LOG_VERSION,
      caller,
      kb: kbRoot,
      // The project the affinity boost used: replay runs from anywhere and must use the same one.
      project,
      request: { ...request, kb: kbRoot },
      results: outcome.results.map((r) => ({ id: r.note.displayId, key: r.note.key, score: Number(r.score.toPrecision(6)) })),
      settings: settingsInForce(config),
    },
    nowMs,
    config.logMaxBytes,
  );
  if (logErr) problems.push(logErr);
  const sessionId = cmd.sessionId ?? config.sessionId;
  if (outcome.results.length === 0 && cmd.gapLog && config.gapLog) {
    const err = logGap(config.stateDir, cmd.query, sessionId, nowMs, config.logMaxBytes);
    if (err) problems.push(err);
  }
  if (outcome.results.length > 0 && cmd.followup && config.followup && sessionId) {
    const r = recordFollowup(
      { stateDir: config.stateDir, metricsPath: config.metricsPath, sessionId, windowSec: config.followupWindowSec, maxBytes: config.logMaxBytes },
      cmd.query,
      outcome.results.map((c) => c.note.key),
      nowMs,
    );
    if ('error' in r) problems.push(r.error);
  }
  if (verbose) for (const p of problems) warn(`recall: ${p}`);
}

export interface IndexCommand {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

/** `recall index`: a full re-read of the KB into its index, then note vectors when an embedding model is installed. */
export async function runIndex(
  cmd: IndexCommand,
  io: RunIo & { progress?: (done: number, total: number) => void; embedProgress?: (done: number, total: number) => void },
): Promise<{ report: RefreshReport; scope: Scope; file: string; vectors: string }> {
  const config = loadConfig(io.env);
  if (cmd.kb) checkKbDir(cmd.kb, io.cwd);
  const scope = resolveScope(config, { kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, cwd: io.cwd });
  let index = openKbIndex(config, scope.root, io.env);
  const lock = index.file === ':memory:' ? null : await waitForRefreshLock(index.file, io.warn);
  try {
    if (index.fallbackReason) io.warn(`recall: ${index.fallbackReason}`);
    let report: RefreshReport;
    const pass = (): RefreshReport =>
      refreshIndex(index, { force: true, ...(io.progress ? { onProgress: io.progress } : {}), ...(lock ? { onBatch: () => lock.beat() } : {}) });
    try {
      try {
        report = pass();
      } catch (err) {
        // Corrupt data pages are found by writing over them: set the file aside and index again.
        if (classifyDbError(err) !== 'corrupt') throw err;
        io.warn(`recall: ${index.file} is corrupt (${errorMessage(err)}); setting it aside and rebuilding`);
        index = rebuildIndex(index, config.stateDir);
        report = pass();
      }
    } catch (err) {
      const kind = classifyDbError(err, index.file);
      const hint = kind === 'full' ? ' (the disk is full; the index was left as it was)' : kind === 'busy' ? ' (another process is writing it)' : '';
      throw new IndexFailed(`indexing ${scope.root} failed: ${errorMessage(err)}${hint}`);
    }
    let vectors = 'no embedding model installed: vector index not built';
    const models = io.models ?? createModelClient(config, io.env).client;
    if (models.models.embed) {
      try {
        const r = await embedMissing(index, models, { max: Number.MAX_SAFE_INTEGER, ...(io.embedProgress ? { onProgress: io.embedProgress } : {}) });
        vectors = `${r.embedded} notes embedded with ${models.models.embed}`;
      } catch (err) {
        vectors = `vectors not built: ${errorMessage(err)}`;
      }
    }
    return { report, scope, file: index.file, vectors };
  } finally {
    lock?.release();
    closeIndex(index);
  }
}

/** `recall index` failed (disk full, corrupt beyond repair, busy): the CLI exits 1 with this message. */
export class IndexFailed extends Error {
  readonly code = 'E_INDEX_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'IndexFailed';
  }
}

/** How long `recall index` waits for a background refresher of the same index to finish. */
const INDEX_LOCK_WAIT_MS = 120_000;

async function waitForRefreshLock(file: string, warn: (l: string) => void): Promise<ReturnType<typeof tryRefreshLock>> {
  const until = Date.now() + INDEX_LOCK_WAIT_MS;
  let told = false;
  for (let free = 0; ; ) {
    const lock = tryRefreshLock(file);
    if (lock) return lock;
    if (refreshLockHolder(file) === null) {
      // Nobody holds it, yet it cannot be taken twice in a row: its file cannot be written (a full
      // disk, a read-only dir). Index without it; SQLite still keeps two writers apart, and the
      // indexing reports what the disk allows.
      free += 1;
      if (free >= 2) {
        warn(`recall: cannot create the refresh lock of ${file} (disk full or not writable); indexing without it`);
        return null;
      }
      continue;
    }
    free = 0;
    if (!told) {
      warn(`recall: waiting for the refresh running in process ${refreshLockHolder(file) ?? '?'} to finish`);
      told = true;
    }
    if (Date.now() > until) throw new IndexFailed(`the index ${file} is being refreshed by process ${refreshLockHolder(file) ?? '?'}; try again later`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
