/**
 * One recall in an opened KB: the command becomes a request and the pipeline runs once
 * (`sessionOutcome$`, lazy and cancellable); `runInSession` then renders the outcome and does the
 * bookkeeping, or a caller that selects by itself (a hook) records what it gave (`recordGiven`).
 * Nothing here writes to stdout or exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defer, from, lastValueFrom, map, of, switchMap, tap, type Observable } from 'rxjs';
import { errorMessage } from '../../core/errors.js';
import type { Degradation, RecallOutcome, ScoredCandidate } from '../../core/types.js';
import { classifyDbError, indexGeneration, markSuspect } from '../../sources/index/index.js';
import { expansionsAvailable } from '../../sources/query/index.js';
import { bookkeeping } from './bookkeeping.js';
import type { RecallAnswer, RecallCommand, RunOptions, RunResult } from '../command.js';
import { recall$, type RecallRequest, recallDeps, temporalExtractor } from '../recall/index.js';
import { degradationLines, fieldMissing, renderOutcome, scopeJson } from './render-outcome.js';
import type { OpenedKb } from './session.js';
import { corruptionSeen } from './session-index.js';
import { scrubAlong } from '../../sinks/scrub/index.js';

/** Time kept back from a deadline for rendering and writing the answer. */
const ANSWER_RESERVE_MS = 50;

/** Why the KB gives nothing to recall (it holds no live note). */
function emptyKbWhy(kb: OpenedKb): string {
  const { scope, refresh } = kb;
  if (refresh && !refresh.complete)
    return refresh.pending > 0
      ? `the index of ${scope.root} is still being built (${refresh.pending} files left for a background refresher)`
      : `the index of ${scope.root} holds no notes yet and could not be refreshed now`;
  return fs.existsSync(path.join(scope.root, 'documents'))
    ? `no learnings in ${path.join(scope.root, 'documents')}`
    : fs.existsSync(scope.root)
      ? `no learnings in ${scope.root}`
      : `no KB at ${scope.root} (${scope.reason}; \`recall add\` starts one, --kb DIR reads another)`;
}

/** The answer when the KB holds no live note: nothing in markdown, an empty result with the reason in JSON. */
function emptyKbAnswer(kb: OpenedKb, cmd: RecallCommand, why: string): RunResult {
  const { scope } = kb;
  const json = `${JSON.stringify({ query: cmd.query, count: 0, results: [], notice: why, kb: scopeJson(scope) }, null, 2)}\n`;
  return { stdout: cmd.format === 'json' ? json : '', outcome: null, scope, refresh: kb.refresh };
}

/** The index generation, or null (then no cached fetch can be trusted and this run skips the cache). */
function generationOf(kb: OpenedKb, degraded: Degradation[]): number | null {
  try {
    return indexGeneration(kb.index);
  } catch (err) {
    if (classifyDbError(err) === 'corrupt') markSuspect(kb.index);
    degraded.push({ stage: 'cache', reason: 'error', message: `index generation unreadable (${errorMessage(err)}); cache skipped` });
    return null;
  }
}

/** The command's flags over the settings in force. */
function requestOf(kb: OpenedKb, cmd: RecallCommand, generation: number | null, deadline: number): RecallRequest {
  const { config } = kb;
  return {
    query: cmd.query,
    limit: cmd.limit ?? config.defaultLimit,
    mode: cmd.mode,
    confidence: cmd.confidence,
    tags: cmd.tags,
    domainHint: cmd.domainHint.toLowerCase(),
    minOverlap: cmd.minOverlap ?? config.defaultMinOverlap,
    floor: cmd.floor ?? config.floors.cli,
    keepWeak: cmd.showWeak === true && cmd.format !== 'fleet-context',
    maxTokens: cmd.maxTokens,
    noCache: !cmd.cache || generation === null,
    cacheTtlSec: cmd.cacheTtl ?? config.cacheTtlSec,
    includeQuarantined: cmd.includeQuarantined ?? cmd.format === 'fleet-context',
    mmr: cmd.mmr && config.mmr,
    mmrLambda: cmd.mmrLambda ?? config.mmrLambda,
    ...(Number.isFinite(deadline) ? { deadlineMs: deadline - ANSWER_RESERVE_MS } : {}),
  };
}

/** Missing build data (an unbuilt or damaged install) degrades the lexical arm; say so. */
function dataGap(): Degradation[] {
  if (expansionsAvailable()) return [];
  const message =
    'related words unavailable (dist/data/wordnet-expand.tsv missing or unreadable): the lexical arm searches the query words only';
  return [{ stage: 'arm:bm25', reason: 'unavailable', message }];
}

/** Runs the pipeline once, as a cancellable stream; the session's and this run's degradations go first. */
function fetchOutcome$(kb: OpenedKb, cmd: RecallCommand, runOpts: RunOptions): Observable<RecallOutcome> {
  return defer(() => {
    const runDegraded: Degradation[] = [];
    const generation = generationOf(kb, runDegraded);
    const req = requestOf(kb, cmd, generation, Math.min(runOpts.deadlineMs ?? Infinity, kb.deadlineMs ?? Infinity));
    return from(temporalExtractor(cmd.query, kb.config.temporalEnabled)).pipe(
      switchMap((extractTemporal) => {
        const wiring = { ...kb, generation, env: kb.io.env, extractTemporal, ...(runOpts.trace ? { trace: runOpts.trace } : {}) };
        return recall$(req, recallDeps(req, wiring));
      }),
      map((fetched) => {
        if (corruptionSeen(fetched.degraded)) markSuspect(kb.index);
        const extra = [...kb.early, ...runDegraded, ...dataGap()];
        return extra.length ? { ...fetched, degraded: [...extra, ...fetched.degraded] } : fetched;
      }),
    );
  });
}

/**
 * The outcome of one recall in the session, neither rendered nor logged (null: the KB holds no live
 * note). Lazy: nothing runs before subscribe; unsubscribing stops the pipeline, its arms and model
 * calls. What a recall says on stderr (an empty KB, a mode this install lacks, with --verbose the
 * degradations, an abstention, a missing field) is said here, once.
 */
export function sessionOutcome$(kb: OpenedKb, cmd: RecallCommand, runOpts: RunOptions): Observable<RecallAnswer> {
  const { scope, refresh, io } = kb;
  return defer(() => {
    if (kb.liveNotes === 0) {
      io.warn(`recall: ${emptyKbWhy(kb)}; nothing to recall`);
      return of<RecallAnswer>({ outcome: null, scope, refresh });
    }
    if (cmd.mode === 'global' && kb.engines.vectorGraph.kind !== 'reflect') {
      // Said whatever the verbosity: the user asked for something this installation cannot do.
      io.warn(
        'recall: --mode global needs the reflect engine (community reports), which is not available here; answered from the other arms',
      );
    }
    return fetchOutcome$(kb, cmd, runOpts).pipe(
      tap((outcome) => warnAbout(kb, cmd, outcome)),
      map((outcome): RecallAnswer => ({ outcome, scope, refresh })),
    );
  });
}

function warnAbout(kb: OpenedKb, cmd: RecallCommand, outcome: RecallOutcome): void {
  const { io } = kb;
  if (kb.verbose || cmd.verbose) for (const l of degradationLines(outcome.degraded)) io.warn(l);
  if (outcome.persona) return;
  if (outcome.abstained && cmd.format !== 'json')
    io.warn(`recall: nothing relevant enough to return (${scrubAlong(outcome.abstained, cmd.query)})`);
  const missing = cmd.field && cmd.format !== 'json' ? fieldMissing(outcome.results, cmd.field) : null;
  if (missing) io.warn(`recall: ${missing}`);
}

/** The glyphs a rendering or a log line needs (none when neither economics nor markdown shows them). */
const glyphsFor = (kb: OpenedKb, cmd: RecallCommand): Map<string, string> =>
  kb.config.economics || cmd.format === 'markdown' ? kb.glyphs() : new Map<string, string>();

/** The recall's bookkeeping, recording `given` (what the caller gave of the results) as what it returned. */
export function recordGiven(
  kb: OpenedKb,
  cmd: RecallCommand,
  outcome: RecallOutcome,
  given: readonly ScoredCandidate[] | undefined,
  runOpts: RunOptions,
): void {
  if (runOpts.noLog || outcome.persona) return;
  const { config, io, scope } = kb;
  const verbose = kb.verbose || cmd.verbose;
  const caller = runOpts.caller ?? 'cli';
  const deadlineMs = Math.min(runOpts.deadlineMs ?? Infinity, kb.deadlineMs ?? Infinity);
  bookkeeping(
    cmd,
    config,
    outcome,
    glyphsFor(kb, cmd),
    kb.now(),
    io.warn,
    verbose,
    caller,
    scope.root,
    kb.currentProject(),
    given,
    deadlineMs,
  );
}

export async function runInSession(kb: OpenedKb, cmd: RecallCommand, runOpts: RunOptions): Promise<RunResult> {
  const { config, scope, refresh } = kb;
  const { outcome } = await lastValueFrom(sessionOutcome$(kb, cmd, runOpts));
  if (!outcome) return emptyKbAnswer(kb, cmd, emptyKbWhy(kb));
  const glyphs = glyphsFor(kb, cmd);
  if (outcome.persona) {
    const p = outcome.persona;
    const stdout =
      cmd.format === 'json'
        ? renderOutcome(cmd, outcome, outcome.results, { config, glyphs, kb: scopeJson(scope) })
        : `${p.field_name}: ${p.value} (persona, confidence ${p.confidence.toFixed(2)})\n`;
    return { stdout, outcome, scope, refresh };
  }
  const stdout = renderOutcome(cmd, outcome, outcome.results, { config, glyphs, kb: scopeJson(scope) });
  recordGiven(kb, cmd, outcome, undefined, runOpts);
  return { stdout, outcome, scope, refresh };
}
