/**
 * What a recall leaves behind: the recall log line (what `recall replay` needs to run it again),
 * the gap log when nothing was found, and the follow-up record of the session. Failures never fail
 * the recall; with --verbose they are printed.
 */
import type { RecallOutcome, ScoredCandidate } from '../../core/types.js';
import { blockEconomics } from '../../sinks/economics.js';
import { logGap, logRecall, recordFollowup } from '../../sinks/logs/index.js';
import type { RecallCommand } from '../command.js';
import type { RecallConfig } from '../config/index.js';

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
    episodeWeight: config.episodeWeight,
    temporalArm: config.temporalArm,
    crossEncoder: config.crossEncoder,
    mmr: config.mmr,
    mmrLambda: config.mmrLambda,
    includeSuperseded: config.includeSuperseded,
    ceModel: config.ceModel,
    embedModel: config.embedModel,
  };
}

/** Where the recall ran and who asked: recorded with the log line. */
interface LogOrigin {
  caller: string;
  kbRoot: string;
  project: string;
  /** What the caller gave from the results (a hook's own selection); absent, all of them. */
  given?: readonly ScoredCandidate[];
}

/**
 * The recall log line: what was asked, what was given (`ids`, `count` and the token economics: a
 * hook's own selection when it made one), and what `recall replay` needs to run it again (the
 * request, the settings in force and `results`, the ranking the recall returned for that request).
 */
function logLine(cmd: RecallCommand, config: RecallConfig, outcome: RecallOutcome, glyphs: Map<string, string>, origin: LogOrigin) {
  // What `recall replay` needs to run this recall again: the request and the settings in force.
  const { verbose: _v, sessionId: _s, kb: _k, ...request } = cmd;
  const given = origin.given ?? outcome.results;
  const notes = given.map((r) => r.note);
  return {
    query: cmd.query,
    mode: cmd.mode,
    count: given.length,
    cached: outcome.cacheTier !== null,
    cache_tier: outcome.cacheTier,
    ids: given.map((r) => r.note.displayId),
    ms: Math.round(outcome.ms),
    degraded: outcome.degraded.map((d) => `${d.stage}:${d.reason}`),
    economics: config.economics ? blockEconomics(notes, glyphs, config.home) : null,
    v: RECALL_LOG_VERSION,
    caller: origin.caller,
    kb: origin.kbRoot,
    // The project the affinity boost used: replay runs from anywhere and must use the same one.
    project: origin.project,
    request: { ...request, kb: origin.kbRoot },
    results: outcome.results.map((r) => ({ id: r.note.displayId, key: r.note.key, score: Number(r.score.toPrecision(6)) })),
    settings: settingsInForce(config),
  };
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
  given?: readonly ScoredCandidate[],
  deadlineMs?: number,
): void {
  const problems: string[] = [];
  const origin: LogOrigin = { caller, kbRoot, project, ...(given ? { given } : {}) };
  const logErr = logRecall(config.stateDir, logLine(cmd, config, outcome, glyphs, origin), nowMs, config.logMaxBytes);
  const followed = given ?? outcome.results;
  if (logErr) problems.push(logErr);
  const sessionId = cmd.sessionId ?? config.sessionId;
  if (outcome.results.length === 0 && cmd.gapLog && config.gapLog) {
    const err = logGap(config.stateDir, cmd.query, sessionId, nowMs, config.logMaxBytes);
    if (err) problems.push(err);
  }
  if (followed.length > 0 && cmd.followup && config.followup && sessionId) {
    const followup = {
      stateDir: config.stateDir,
      metricsPath: config.metricsPath,
      sessionId,
      windowSec: config.followupWindowSec,
      maxBytes: config.logMaxBytes,
      // A hook's recall: the follow-up's lock is waited for no longer than its deadline leaves.
      ...(deadlineMs !== undefined && Number.isFinite(deadlineMs) ? { waitMs: deadlineMs - Date.now() } : {}),
    };
    const r = recordFollowup(
      followup,
      cmd.query,
      followed.map((c) => c.note.key),
      nowMs,
    );
    if ('error' in r) problems.push(r.error);
  }
  if (verbose) for (const p of problems) warn(`recall: ${p}`);
}
