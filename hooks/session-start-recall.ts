/**
 * SessionStart's recall: the probe (one fresh HIGH note injected alone), else the main recall; the
 * "memory:" footer; and the injected set and recall log written from what the block shows.
 */
import { map, of, switchMap, type Observable } from 'rxjs';
import { DEFAULT_COMMAND, type RecallCommand, type RecallSession } from '../pipeline/run.js';
import { hookLog, pick, type HookContext } from './runtime.js';
import { hookRow } from './hook-table.js';
import { CHARS_PER_TOKEN, economicsBlock, economicsRow, pyLen } from '../sinks/economics.js';
import { recordInjected, resetInjected } from '../sinks/logs/index.js';
import { kbProblem } from '../pipeline/health/index.js';
import { DAY_MS } from '../core/dates.js';
import { sessionKey } from '../core/session-key.js';
import type { ScoredCandidate } from '../core/types.js';
import { injectedId, renderAnswer, renderResults, shownResults } from './hook-session.js';

/** SessionStart's "memory:" footer over the learnings the rendered block actually shows (a truncated one is not counted). */
export function footer(session: RecallSession, results: ScoredCandidate[], block: string): string {
  if (!session.config.economics || results.length === 0 || !block) return '';
  const rows = shownResults(results, block).map((r) => economicsRow(r.note, { glyphs: session.glyphs(), home: session.config.home }));
  const line = `memory: ${rows.length} ${rows.length === 1 ? 'learning' : 'learnings'}, ~${Math.floor(pyLen(block) / CHARS_PER_TOKEN)} tok injected`;
  // Savings only where the discovery cost is known (see EconomicsRow.estimated).
  const measured = rows.filter((r) => !r.estimated);
  return measured.length ? `${line}, est ~${economicsBlock(measured).saved_tokens} tok saved` : line;
}

/**
 * Record what SessionStart injected in the session's set, so the session's prompts do not give the
 * same notes again. After /clear or a compaction the agent's context no longer holds what was given
 * before: the set starts over with this injection. A run the deadline cut never gets here.
 */
function recordSessionStart(ctx: HookContext, input: Record<string, unknown>, shown: readonly ScoredCandidate[]): void {
  const sessionId = pick(input, ['session_id', 'sessionId']);
  if (!sessionId) return;
  const ids = shown.map(injectedId);
  const source = pick(input, ['source']);
  const ok =
    source === 'clear' || source === 'compact' ? resetInjected(ctx.stateDir, sessionId, ids) : recordInjected(ctx.stateDir, sessionId, ids);
  if (!ok)
    hookLog(
      ctx,
      'session-start',
      `could not record injected ids for session ${sessionKey(sessionId)} (lock busy or state dir not writable)`,
    );
}

/** Why this session's KB gives nothing to recall, with the fix (null when it has notes). */
export function sessionProblem(session: RecallSession, env: HookContext['env'], home: string): string | null {
  const kb = {
    root: session.scope.root,
    liveNotes: session.liveNotes,
    problems: session.refresh.problems.length,
    pending: !session.refresh.complete,
  };
  return kbProblem(kb, env, session.config.stateDir, home);
}

/** Learnings the main recall gives, and the characters they may take (hook table). */
export const SESSION_START_KEEP = 3;
export const SESSION_START_CHARS = hookRow('session-start').budgetChars;

/** Probe freshness: a HIGH note dated within this many days short-circuits the session start (the reference's value). */
export const PROBE_FRESH_DAYS = 30;
const TIER_SCORE: Record<string, number> = { HIGH: 1, MEDIUM: 0.7, LOW: 0.4 };

/**
 * Whether SessionStart's probe found one HIGH note fresh and strong enough to be injected alone. A
 * note an agent wrote that no person accepted never is (its tier is at most MEDIUM anyway): it would
 * otherwise stand alone at the start of every session.
 */
function probeWins(ctx: HookContext, top: ScoredCandidate | undefined): top is ScoredCandidate {
  if (top?.note.review) return false;
  const ageDays = top?.note.recencyMs != null ? (ctx.now() - top.note.recencyMs) / DAY_MS : null;
  const content = top ? top.note.keyInsight || top.note.title || top.note.howToApply : '';
  if (!top || !content.trim() || ageDays === null || ageDays > PROBE_FRESH_DAYS || (TIER_SCORE[top.note.confidence] ?? 0.5) <= 0.8)
    return false;
  hookLog(ctx, 'session-start', `probe short-circuit: ${top.note.displayId} (${Math.max(0, Math.floor(ageDays))} days old)`);
  return true;
}

/**
 * The probe, then (unless it won) the main recall: each logged with what it gave, the injected
 * set recorded from what the block shows.
 */
export function sessionStartRecall$(
  ctx: HookContext,
  input: Record<string, unknown>,
  session: RecallSession,
  q: { query: string; tags: string[] },
): Observable<{ block: string; results: ScoredCandidate[] }> {
  const common = {
    ...DEFAULT_COMMAND,
    query: q.query,
    tags: q.tags,
    gapLog: false,
    followup: false,
    floor: session.config.floors.sessionStart,
  };
  const minOverlap = ctx.overrides.number('REFLECT_RECALL_MIN_OVERLAP');
  const maxTokens = ctx.overrides.number('REFLECT_RECALL_MAX_TOKENS');
  const probeCmd: RecallCommand = { ...common, minOverlap, maxTokens, limit: 1, confidence: 'HIGH' };
  const mainCmd: RecallCommand = { ...common, minOverlap, maxTokens, limit: SESSION_START_KEEP, maxChars: SESSION_START_CHARS };
  const probeOpts = { caller: 'session-start:probe' };
  return session.outcome$(probeCmd, probeOpts).pipe(
    switchMap(({ outcome: probed }) => {
      const top = probed?.results[0];
      if (probeWins(ctx, top)) {
        const block = renderResults(session, q.query, [top], SESSION_START_CHARS);
        const shown = shownResults([top], block);
        session.record(probeCmd, probed!, shown, probeOpts);
        recordSessionStart(ctx, input, shown);
        return of({ block, results: [top] });
      }
      if (probed) session.record(probeCmd, probed, [], probeOpts);
      const mainOpts = { caller: 'session-start' };
      return session.outcome$(mainCmd, mainOpts).pipe(
        map(({ outcome }) => {
          const block = renderAnswer(session, mainCmd, outcome);
          const results = outcome?.results ?? [];
          const shown = shownResults(results, block);
          if (outcome) session.record(mainCmd, outcome, shown, mainOpts);
          recordSessionStart(ctx, input, shown);
          return { block, results };
        }),
      );
    }),
  );
}
