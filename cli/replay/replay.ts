/**
 * `recall replay [LOG] [--since DATE] [--limit N] [recall flags] [--fail-on-change] [--json]`
 *
 * Re-runs logged recalls (recall_log.jsonl) against the current KB and settings and reports what
 * would now be injected differently (the tool-call hook's logged commands too: cli/replay/actions.ts): ids added and removed, rank changes, token totals, latency.
 * The settings in force are this process's (so `RECALL_TAG_ALPHA=0.5 recall replay` tries a new
 * alpha); flags given to replay override the logged request. It never writes the recall log, the
 * gap log, the follow-up diagnostic or the cache. Lines of the reference's schema (no `v`, no
 * request) replay with the logged query and mode and default flags.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../pipeline/config/index.js';
import { DEFAULT_COMMAND, openSession, type RecallCommand, type RecallSession, type RunIo } from '../../pipeline/run.js';
import { estimateTokens } from '../../core/terms.js';
import { parseLooseDate } from '../../core/dates.js';
import { UsageError } from '../../core/errors.js';
import { readRecallLog, type BadRecord, type LoggedRecall } from './log.js';
import { loggedAction, type LoggedAction } from './log.js';
import { diffIds, type ReplayDiff } from './diff.js';
import { resolveSources, sourcesLine } from '../../pipeline/kb-sources/index.js';
import type { Scope } from '../../pipeline/scope.js';

export { parseLogLine, readRecallLog, type BadRecord, type LoggedRecall } from './log.js';
export { diffIds, type ReplayDiff } from './diff.js';

const BASE: RecallCommand = { ...DEFAULT_COMMAND, format: 'json', cache: false, gapLog: false, followup: false };

/**
 * The command that reproduces a logged recall: its request, with what the logged output format
 * implied kept (fleet-context keeps quarantined notes), replay's overrides on top, and no cache,
 * logs or rendering.
 */
export function replayCommand(r: Pick<LoggedRecall, 'request' | 'query'>, overrides: Partial<RecallCommand>): RecallCommand {
  const includeQuarantined = r.request.includeQuarantined ?? r.request.format === 'fleet-context';
  return {
    ...BASE,
    ...r.request,
    includeQuarantined,
    ...overrides,
    query: r.query,
    format: 'json',
    cache: false,
    gapLog: false,
    followup: false,
    verbose: false,
    sessionId: null,
  };
}

/** One session per KB, scope and logged project (the affinity boost must use the project the recall used). */
async function sessionFor(
  sessions: Map<string, RecallSession>,
  cmd: RecallCommand,
  project: string | null,
  io: RunIo,
): Promise<RecallSession> {
  const key = JSON.stringify([cmd.kb, cmd.global, cmd.allBranches, project]);
  let session = sessions.get(key);
  if (!session) {
    session = await openSession(
      { kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: false, ...(project !== null ? { project } : {}) },
      io,
    );
    sessions.set(key, session);
  }
  return session;
}

export interface ReplayOptions {
  log?: string;
  since?: string;
  limit?: number;
  /** Flags given to replay: they override every logged request. */
  overrides: Partial<RecallCommand>;
  /** Called after each replayed recall (the CLI draws progress on a terminal). */
  progress?: (done: number, total: number) => void;
}

export interface ReplayReport {
  log: string;
  replayed: number;
  skipped: number;
  changed: number;
  diffs: ReplayDiff[];
  /** Verdicts logged on injected notes (`kind: "used"` lines) in the replayed range: how many were used. */
  helpfulness: { judged: number; used: number };
}

/** The log records to replay: those on or after --since, the last --limit of them (a ring buffer: the log is never held whole). */
async function pickRecords(
  log: string,
  opts: ReplayOptions,
  helpfulness: ReplayReport['helpfulness'],
  actions: LoggedAction[],
): Promise<(LoggedRecall | BadRecord)[]> {
  const since = opts.since ? parseLooseDate(opts.since) : null;
  if (opts.since && !since) throw new UsageError(`--since ${opts.since}: not a date (use YYYY-MM-DD)`);
  const picked: (LoggedRecall | BadRecord)[] = [];
  const tally = (e: Record<string, unknown>, line: number): void => {
    if (since && (parseLooseDate(String(e['ts'] ?? ''))?.getTime() ?? 0) < since.getTime()) return;
    const action = loggedAction(e, line);
    if (action) {
      actions.push(action);
      if (opts.limit !== undefined && actions.length > opts.limit) actions.shift();
    }
    if (e['kind'] !== 'used') return;
    helpfulness.judged += 1;
    if (e['used'] === true) helpfulness.used += 1;
  };
  for await (const r of readRecallLog(log, tally)) {
    if (since && 'query' in r && (parseLooseDate(r.ts)?.getTime() ?? 0) < since.getTime()) continue;
    picked.push(r);
    if (opts.limit !== undefined && picked.length > opts.limit) picked.shift();
  }
  return picked;
}

/** A line that could not be replayed (unreadable, or the recall failed): counted as a change. */
const failedDiff = (line: number, query: string, caller: string, before: string[], error: string): ReplayDiff => ({
  line,
  query,
  caller,
  before,
  after: [],
  added: [],
  removed: [],
  moved: [],
  tokensBefore: null,
  tokensAfter: 0,
  msBefore: null,
  msAfter: 0,
  changed: true,
  error,
});

/**
 * What a replayed recall reads, as the `recall: reading …` line the note commands print (null for
 * one KB the user chose): the KBs the logged recall named (a hook with no KB configured logs the
 * sources it read together), else the sources a hook in this folder reads. A logged KB that is one
 * of those keeps its reason ("Claude Code memory of …").
 */
function replaySourcesLine(cmd: RecallCommand, io: RunIo): string | null {
  // With logged KBs, the sources here are looked at without them (a hook logs the first as `kb` too).
  const kb = cmd.kbs ? null : cmd.kb;
  const here = resolveSources(loadConfig(io.env), { kb, global: cmd.global, allBranches: cmd.allBranches, cwd: io.cwd, env: io.env });
  if (!cmd.kbs) return sourcesLine(here);
  const read = cmd.kbs.map(
    (root): Scope =>
      here.read.find((s) => s.root === root) ?? { root, kind: 'configured', project: '', branch: '', reason: 'read by the logged recall' },
  );
  return sourcesLine({ read, skipped: [], zeroConfig: false });
}

/** Re-run one logged recall with today's KB and settings, and compare its ids with the logged ones. */
async function replayOne(
  r: LoggedRecall,
  opts: ReplayOptions,
  sessions: Map<string, RecallSession>,
  io: RunIo,
  said: Set<string>,
): Promise<ReplayDiff> {
  try {
    const cmd = replayCommand(r, opts.overrides);
    // Each set of sources once, on stderr (as list and trace say theirs), before its first recall.
    const line = replaySourcesLine(cmd, io);
    if (line && !said.has(line)) {
      said.add(line);
      io.warn(line);
    }
    const t0 = performance.now();
    const res = cmd.kbs
      ? await (await import('../../pipeline/session/multi-kb.js')).runMultiRecall(cmd, io, { noLog: true })
      : await (await sessionFor(sessions, cmd, r.project, io)).run(cmd, { noLog: true });
    const msAfter = performance.now() - t0;
    const results = res.outcome?.results ?? [];
    const after = results.map((c) => c.note.key);
    return {
      line: r.line,
      query: r.query,
      caller: r.caller,
      before: r.ids,
      after,
      ...diffIds(r.ids, after),
      tokensBefore: r.tokens,
      tokensAfter: results.reduce((n, c) => n + estimateTokens(c.note.chunkText), 0),
      msBefore: r.ms,
      msAfter: Math.round(msAfter),
    };
  } catch (err) {
    return failedDiff(r.line, r.query, r.caller, r.ids, `replay failed: ${(err as Error).message}`);
  }
}

export async function runReplay(opts: ReplayOptions, io: RunIo): Promise<ReplayReport> {
  const config = loadConfig(io.env);
  const log = path.resolve(io.cwd, opts.log ?? path.join(config.stateDir, 'recall_log.jsonl'));
  if (!fs.existsSync(log)) throw new UsageError(`${log}: no recall log to replay`);
  const helpfulness = { judged: 0, used: 0 };
  const actions: LoggedAction[] = [];
  const picked = await pickRecords(log, opts, helpfulness, actions);
  const sessions = new Map<string, RecallSession>();
  const diffs: ReplayDiff[] = [];
  let skipped = 0;
  const said = new Set<string>();
  try {
    for (const r of picked) {
      if (!('query' in r)) {
        skipped += 1;
        diffs.push(failedDiff(r.line, '', 'unknown', [], r.error));
        continue;
      }
      diffs.push(await replayOne(r, opts, sessions, io, said));
      opts.progress?.(diffs.length, picked.length);
    }
  } finally {
    for (const s of sessions.values()) s.close();
  }
  // The tool-call hook's lines: their commands matched again (edits listed, not compared).
  if (actions.length > 0) {
    const { replayActions } = await import('./actions.js');
    const done = await replayActions(actions, io);
    diffs.push(...done);
    skipped += done.filter((d) => d.error?.startsWith('not replayed')).length;
  }
  return { log, replayed: diffs.length - skipped, skipped, changed: diffs.filter((d) => d.changed).length, diffs, helpfulness };
}

export function formatReplay(report: ReplayReport): string {
  const out = [
    `replayed ${report.replayed} recalls from ${report.log}${report.skipped ? ` (${report.skipped} unreadable lines, counted as changes)` : ''}: ${report.changed} would change`,
  ];
  for (const d of report.diffs) {
    if (!d.changed) continue;
    if (d.error) {
      out.push(`line ${d.line}: ${d.error}`);
      continue;
    }
    out.push(`line ${d.line} [${d.caller}] ${JSON.stringify(d.query.slice(0, 80))}`);
    if (d.added.length) out.push(`  + ${d.added.join(', ')}`);
    if (d.removed.length) out.push(`  - ${d.removed.join(', ')}`);
    for (const [id, a, b] of d.moved) out.push(`  ~ ${id}: rank ${a} → ${b}`);
    out.push(`  tokens ${d.tokensBefore ?? '?'} → ${d.tokensAfter}, latency ${d.msBefore ?? '?'} → ${d.msAfter} ms`);
  }
  const tb = report.diffs.reduce((n, d) => n + (d.tokensBefore ?? 0), 0);
  const ta = report.diffs.reduce((n, d) => n + d.tokensAfter, 0);
  const lat = report.diffs.map((d) => d.msAfter).sort((a, b) => a - b);
  out.push(`tokens injected in total: ${tb} → ${ta}; replay latency p50 ${lat[Math.floor(lat.length / 2)] ?? 0} ms`);
  const h = report.helpfulness;
  if (h.judged)
    out.push(`injected notes judged used (logged verdicts): ${h.used} of ${h.judged} (${Math.round((100 * h.used) / h.judged)}%)`);
  return `${out.join('\n')}\n`;
}
