/**
 * One recall in an opened KB: the command becomes a request, the pipeline runs once, the outcome
 * is rendered and the bookkeeping done. Nothing here writes to stdout or exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import { errorMessage } from '../core/errors.js';
import type { Degradation, RecallOutcome } from '../core/types.js';
import { classifyDbError, indexGeneration, markSuspect } from '../sources/index-store.js';
import { expansionsAvailable } from '../sources/word-expansion.js';
import { bookkeeping } from './bookkeeping.js';
import type { RecallCommand, RunOptions, RunResult } from './command.js';
import { recall$ } from './recall.js';
import type { RecallRequest } from './recall-request.js';
import { recallDeps, temporalExtractor } from './recall-wiring.js';
import { degradationLines, fieldMissing, renderOutcome, scopeJson } from './render-outcome.js';
import type { OpenedKb } from './session.js';
import { corruptionSeen } from './session-index.js';
import { scrubAlong } from '../sinks/scrub.js';

/** Time kept back from a deadline for rendering and writing the answer. */
const ANSWER_RESERVE_MS = 50;

/** The answer when the KB holds no live note: a one-line reason, and an empty result in JSON. */
function emptyKbAnswer(kb: OpenedKb, cmd: RecallCommand): RunResult {
  const { scope } = kb;
  const why = fs.existsSync(path.join(scope.root, 'documents'))
    ? `no learnings in ${path.join(scope.root, 'documents')}`
    : fs.existsSync(scope.root)
      ? `no learnings in ${scope.root}`
      : `no KB at ${scope.root} (${scope.reason}; \`recall add\` starts one, --kb DIR reads another)`;
  kb.io.warn(`recall: ${why}; nothing to recall`);
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

/** Runs the pipeline once; the session's and this run's degradations go first. */
async function fetchOutcome(kb: OpenedKb, cmd: RecallCommand, runOpts: RunOptions): Promise<RecallOutcome> {
  const runDegraded: Degradation[] = [];
  const generation = generationOf(kb, runDegraded);
  const req = requestOf(kb, cmd, generation, Math.min(runOpts.deadlineMs ?? Infinity, kb.deadlineMs ?? Infinity));
  const wiring = {
    ...kb,
    generation,
    env: kb.io.env,
    extractTemporal: await temporalExtractor(cmd.query, kb.config.temporalEnabled),
    ...(runOpts.trace ? { trace: runOpts.trace } : {}),
  };
  const fetched = await lastValueFrom(recall$(req, recallDeps(req, wiring)));
  if (corruptionSeen(fetched.degraded)) markSuspect(kb.index);
  const extra = [...kb.early, ...runDegraded, ...dataGap()];
  return extra.length ? { ...fetched, degraded: [...extra, ...fetched.degraded] } : fetched;
}

export async function runInSession(kb: OpenedKb, cmd: RecallCommand, runOpts: RunOptions): Promise<RunResult> {
  const { config, scope, refresh, io } = kb;
  const verbose = kb.verbose || cmd.verbose;
  if (kb.liveNotes === 0) return emptyKbAnswer(kb, cmd);
  if (cmd.mode === 'global' && kb.engines.vectorGraph.kind !== 'reflect') {
    // Said whatever the verbosity: the user asked for something this installation cannot do.
    io.warn(
      'recall: --mode global needs the reflect engine (community reports), which is not available here; answered from the other arms',
    );
  }
  const outcome = await fetchOutcome(kb, cmd, runOpts);
  if (verbose) for (const l of degradationLines(outcome.degraded)) io.warn(l);
  const glyphs = config.economics || cmd.format === 'markdown' ? kb.glyphs() : new Map<string, string>();
  if (outcome.persona) {
    const p = outcome.persona;
    const stdout =
      cmd.format === 'json'
        ? renderOutcome(cmd, outcome, outcome.results, { config, glyphs, kb: scopeJson(scope) })
        : `${p.field_name}: ${p.value} (persona, confidence ${p.confidence.toFixed(2)})\n`;
    return { stdout, outcome, scope, refresh };
  }
  const stdout = renderOutcome(cmd, outcome, outcome.results, { config, glyphs, kb: scopeJson(scope) });
  if (outcome.abstained && cmd.format !== 'json')
    io.warn(`recall: nothing relevant enough to return (${scrubAlong(outcome.abstained, cmd.query)})`);
  const missing = cmd.field && cmd.format !== 'json' ? fieldMissing(outcome.results, cmd.field) : null;
  if (missing) io.warn(`recall: ${missing}`);
  if (!runOpts.noLog) {
    bookkeeping(cmd, config, outcome, glyphs, kb.now(), io.warn, verbose, runOpts.caller ?? 'cli', scope.root, kb.currentProject());
  }
  return { stdout, outcome, scope, refresh };
}
