/**
 * The three hook handlers. Each returns the context text to inject ('' = nothing: the home
 * directory, a short prompt, a payload that says nothing about the work); runtime.ts wraps it in the
 * never-fail envelope. Recalls run in-process through a recall session (one index refresh per hook).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_COMMAND, openSession, type RecallCommand, type RecallSession } from '../pipeline/run.js';
import type { HookContext, HookSpec } from './runtime.js';
import { HOOK_DEADLINE_SEC, hookRow, type HookName } from './hook-table.js';
import { hookLog, pick } from './runtime.js';
import { buildSessionQuery, currentBranch } from './session-query.js';
import { subagentQuery } from './subagent-query.js';
import { conventionsLine, flagOn, loadSkills, matchSkills, skillsBlock, slotsBlock } from './ambient.js';
import { loadConfig } from '../pipeline/config.js';
import { renderMarkdown } from '../sinks/render-markdown.js';
import { CHARS_PER_TOKEN, blockEconomics, pyLen } from '../sinks/economics.js';
import { claimInjected, readInjected, recordInjected, resetInjected } from '../sinks/session-injected.js';
import { kbProblem } from '../pipeline/health/index.js';
import { safeId } from '../sinks/safe-text.js';
import { DAY_MS } from '../core/dates.js';
import type { ScoredCandidate } from '../core/types.js';
import { judgePendingUse, recordPromptEvent, stageClock } from './usage/index.js';

const BASE: Omit<RecallCommand, 'query'> = DEFAULT_COMMAND;

export { HOOK_DEADLINE_SEC };

async function withSession<T>(ctx: HookContext, cwd: string, env: HookContext['env'], fn: (s: RecallSession) => Promise<T>): Promise<T> {
  const session = await openSession(
    { kb: null, global: false, allBranches: false, verbose: false, deadlineMs: ctx.deadlineMs },
    { env, cwd, now: ctx.now, warn: (l) => hookLog(ctx, 'recall', l) },
  );
  try {
    return await fn(session);
  } finally {
    session.close();
  }
}

function render(session: RecallSession, query: string, results: ScoredCandidate[], maxChars: number): string {
  const config = session.config;
  return renderMarkdown({
    query,
    results,
    field: null,
    maxChars,
    economics: config.economics,
    glyphs: session.glyphs(),
    home: config.home,
  });
}

/** The project a hook works for: $CLAUDE_PROJECT_DIR, else the cwd the harness sent, else the process cwd. */
function projectCwd(ctx: HookContext, inputCwd: string | null): string {
  return path.resolve(ctx.env['CLAUDE_PROJECT_DIR'] || inputCwd || ctx.cwd);
}

const join = (...parts: string[]): string =>
  parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join('\n\n');

/** SessionStart's "memory:" footer over the learnings the rendered block actually shows (a truncated one is not counted). */
function footer(session: RecallSession, results: ScoredCandidate[], block: string): string {
  if (!session.config.economics || results.length === 0 || !block) return '';
  // The block shows ids as safeId() made them.
  const shown = shownResults(results, block);
  const b = blockEconomics(
    shown.map((r) => r.note),
    session.glyphs(),
    session.config.home,
  );
  return `memory: ${b.count} ${b.count === 1 ? 'learning' : 'learnings'}, ~${Math.floor(pyLen(block) / CHARS_PER_TOKEN)} tok injected, est ~${b.saved_tokens} tok saved`;
}

/** Ids of the learnings a rendered block shows (a learning cut by the budget is not shown). */
function shownResults(results: readonly ScoredCandidate[], block: string): ScoredCandidate[] {
  const shownIds = new Set([...block.matchAll(/^- \*\*\[(.+?)\]\*\*/gm)].map((m) => m[1]));
  return results.filter((r) => shownIds.has(safeId(r.note.displayId)));
}

/**
 * Record what SessionStart injected in the session's set, so the session's prompts do not give the
 * same notes again. After /clear or a compaction the agent's context no longer holds what was given
 * before: the set starts over with this injection. Nothing is recorded once the deadline gave up
 * (the agent got an empty context).
 */
function recordSessionStart(ctx: HookContext, input: Record<string, unknown>, results: readonly ScoredCandidate[], block: string): void {
  const sessionId = pick(input, ['session_id', 'sessionId']);
  if (!sessionId || ctx.gaveUp) return;
  const ids = shownResults(results, block).map((c) => (c.note.displayId !== '?' ? c.note.displayId : c.note.key));
  const source = pick(input, ['source']);
  const ok =
    source === 'clear' || source === 'compact' ? resetInjected(ctx.stateDir, sessionId, ids) : recordInjected(ctx.stateDir, sessionId, ids);
  if (!ok) hookLog(ctx, 'session-start', `could not record injected ids for session ${sessionId} (lock busy or state dir not writable)`);
}

/** Why this session's KB gives nothing to recall, with the fix (null when it has notes). */
function sessionProblem(session: RecallSession, env: HookContext['env'], home: string): string | null {
  const kb = {
    root: session.scope.root,
    liveNotes: session.liveNotes,
    problems: session.refresh.problems.length,
    pending: !session.refresh.complete,
  };
  return kbProblem(kb, env, session.config.stateDir, home);
}

/** Probe freshness: a HIGH note dated within this many days short-circuits the session start (the reference's value). */
export const PROBE_FRESH_DAYS = 30;
const TIER_SCORE: Record<string, number> = { HIGH: 1, MEDIUM: 0.7, LOW: 0.4 };

export const sessionStartHook: HookSpec = {
  ...hookRow('session-start'),
  async run(input, ctx) {
    const cwd = projectCwd(ctx, pick(input, ['cwd']));
    const home = ctx.env['HOME'] || os.homedir();
    const real = (p: string): string => {
      try {
        return fs.realpathSync(p);
      } catch {
        return path.resolve(p);
      }
    };
    if (real(cwd) === real(home)) return '';
    const config = loadConfig(ctx.env);
    const q = buildSessionQuery(cwd, ctx.stateDir);
    const tiered = flagOn(ctx.env, 'REFLECT_TIERED_INJECT');
    const ambient = join(
      flagOn(ctx.env, 'REFLECT_SLOTS') ? slotsBlock(config.dbPath, q.project) : '',
      tiered ? conventionsLine(config.dbPath, q.project) : '',
    );
    if (tiered) {
      const minScore = ctx.overrides.num('REFLECT_SKILL_TIER_MIN_SCORE', 2, 0, 1000);
      const skills = matchSkills(q.query, loadSkills(ctx.env['REFLECT_SKILLS_DIR'] || path.join(home, '.claude', 'skills')), minScore);
      if (skills.length) return join(ambient, skillsBlock(skills));
    }
    if (!q.query) return ambient;
    // Scope resolution needs the branch of the project, not of wherever the hook process runs.
    const env = { ...ctx.env, RECALL_BRANCH: ctx.env['RECALL_BRANCH'] ?? currentBranch(cwd) };
    const minOverlap = ctx.overrides.num('REFLECT_RECALL_MIN_OVERLAP', 0.2, 0, 1);
    const maxTokens = ctx.overrides.num('REFLECT_RECALL_MAX_TOKENS', 0, 0, 1_000_000, true);
    return withSession(ctx, cwd, env, async (session) => {
      const common = {
        ...BASE,
        query: q.query,
        tags: q.tags,
        gapLog: false,
        followup: false,
        minOverlap,
        maxTokens,
        floor: session.config.floors.sessionStart,
      };
      // Nothing to recall from (no KB, no notes, an unreadable index): the person is told, with the fix.
      ctx.notice = sessionProblem(session, env, home);
      // The probe: one HIGH note, fresh and strong enough, is injected alone and the boot stops there.
      const probe = await session.run({ ...common, limit: 1, confidence: 'HIGH' }, { caller: 'session-start:probe' });
      const top = probe.outcome?.results[0];
      const ageDays = top?.note.recencyMs != null ? (ctx.now() - top.note.recencyMs) / DAY_MS : null;
      const content = top ? top.note.keyInsight || top.note.title || top.note.howToApply : '';
      if (top && content.trim() && ageDays !== null && ageDays <= PROBE_FRESH_DAYS && (TIER_SCORE[top.note.confidence] ?? 0.5) > 0.8) {
        hookLog(ctx, 'session-start', `probe short-circuit: ${top.note.displayId} (${Math.max(0, Math.floor(ageDays))} days old)`);
        const block = render(session, q.query, [top], 1500);
        recordSessionStart(ctx, input, [top], block);
        return join(ambient, block, footer(session, [top], block));
      }
      const main = await session.run({ ...common, limit: 3, maxChars: 1500 }, { caller: 'session-start' });
      const results = main.outcome?.results ?? [];
      recordSessionStart(ctx, input, results, main.stdout);
      return join(ambient, main.stdout, footer(session, results, main.stdout));
    });
  },
};

/** Prompts shorter than this carry too little to search for (the reference's value). */
export const MIN_PROMPT_CHARS = 12;
/** Fetched, kept and budgeted per prompt (the reference's values). */
const UPS_FETCH = 9;
const UPS_KEEP = 3;
const UPS_CHARS = 1500;

/**
 * What the prompt hook injects from its (already floored, deduplicated) results: up to UPS_KEEP
 * whole learnings whose block fits UPS_CHARS. A learning that does not fit is skipped, not cut.
 */
export function wholeLearnings(
  results: readonly ScoredCandidate[],
  renderList: (list: ScoredCandidate[]) => string,
): { kept: ScoredCandidate[]; block: string } {
  const kept: ScoredCandidate[] = [];
  let block = '';
  for (const c of results) {
    if (kept.length >= UPS_KEEP) break;
    const next = renderList([...kept, c]);
    if (next.length > UPS_CHARS) continue;
    kept.push(c);
    block = next;
  }
  return { kept, block };
}

/** Candidates the prompt hook asks for before dedupe (the reference's value). */
export const PROMPT_FETCH = UPS_FETCH;

export const userPromptSubmitHook: HookSpec = {
  ...hookRow('user-prompt-submit'),
  async run(input, ctx) {
    // Copilot ignores the output of userPromptSubmitted; only userPromptTransformed (which sends the
    // model-facing `transformedPrompt`) can add to the prompt. Anywhere else, injecting (and recording
    // ids as injected) would be a lie.
    const sessionId = pick(input, ['session_id', 'sessionId']);
    // Whether the notes of this session's previous prompt were used, from what the assistant wrote since.
    judgePendingUse(ctx, sessionId);
    if (ctx.harness === 'copilot' && typeof input['transformedPrompt'] !== 'string') return '';
    const prompt = pick(input, ['prompt', 'user_prompt', 'userPrompt']) ?? '';
    if (prompt.length < MIN_PROMPT_CHARS) return '';
    const cwd = projectCwd(ctx, pick(input, ['cwd']));
    return withSession(ctx, cwd, ctx.env, async (session) => {
      // Every candidate under the floor is gone before dedupe: the refill can never pad with noise.
      const clock = stageClock();
      const res = await session.run(
        { ...BASE, query: prompt, limit: UPS_FETCH, maxChars: 0, sessionId, floor: session.config.floors.userPrompt },
        { caller: 'user-prompt-submit', trace: clock.sink },
      );
      const results = res.outcome?.results ?? [];
      const idOf = (c: ScoredCandidate): string => (c.note.displayId !== '?' ? c.note.displayId : c.note.key);
      let picked: { kept: ScoredCandidate[]; block: string } = { kept: [], block: '' };
      // Whole learnings among those this session has not been given yet.
      const choose = (seen: ReadonlySet<string>): string[] => {
        const fresh = results.filter((c) => !seen.has(c.note.displayId) && !seen.has(c.note.key));
        picked = wholeLearnings(fresh, (list) => render(session, prompt, list, 0));
        return picked.kept.map(idOf);
      };
      // Past the deadline the agent got an empty context: nothing may be recorded as injected.
      if (ctx.gaveUp) return '';
      // The "already injected" check and the record happen under one lock: concurrent prompts of a
      // session must not both inject the same note.
      if (sessionId && results.length > 0 && claimInjected(ctx.stateDir, sessionId, choose) === null) {
        choose(readInjected(ctx.stateDir, sessionId));
        hookLog(ctx, 'user-prompt-submit', `could not record injected ids for session ${sessionId} (lock busy or state dir not writable)`);
      } else if (!sessionId) choose(new Set());
      recordPromptEvent(ctx, { query: prompt, input, sessionId, res, picked, stages: clock.stages() });
      return picked.kept.length === 0 ? '' : picked.block;
    });
  },
};

export const subagentStartHook: HookSpec = {
  ...hookRow('subagent-start'),
  async run(input, ctx) {
    const fixed = ctx.env[hookRow('subagent-start').fixedContextEnv];
    if (fixed !== undefined) return fixed.trim();
    const cwd = pick(input, ['cwd']) || ctx.cwd;
    const query = subagentQuery(input);
    if (!query) return '';
    const limit = ctx.overrides.num('REFLECT_SUBAGENT_RECALL_LIMIT', 3, 1, 100, true);
    const maxChars = ctx.overrides.num('REFLECT_SUBAGENT_RECALL_MAX_CHARS', 1500, 0, 1_000_000, true);
    return withSession(ctx, projectCwd(ctx, cwd), ctx.env, async (session) => {
      const res = await session.run(
        { ...BASE, query, limit, maxChars, gapLog: false, followup: false, floor: session.config.floors.subagent },
        { caller: 'subagent-start' },
      );
      return res.stdout;
    });
  },
};

/** The handler of each hook in the hook table (the type makes a missing one a compile error). */
export const HOOKS: Readonly<Record<HookName, HookSpec>> = {
  'session-start': sessionStartHook,
  'user-prompt-submit': userPromptSubmitHook,
  'subagent-start': subagentStartHook,
};
