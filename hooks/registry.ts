/**
 * The hook handlers. Each is a stream of the context text to inject ('' = nothing: the home
 * directory, a short prompt, a payload that says nothing about the work); runtime.ts subscribes to
 * it under the deadline and wraps it in the never-fail envelope. Recalls run in-process through a
 * recall session (one index refresh per hook): the hook asks it for outcomes, selects and renders
 * what it gives, and records exactly that.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defer, from, map, of, switchMap, type Observable } from 'rxjs';
import { DEFAULT_COMMAND, type RecallCommand, type RecallSession } from '../pipeline/run.js';
import type { HookContext, HookSpec } from './runtime.js';
import { HOOK_DEADLINE_SEC, hookRow, type HookName } from './hook-table.js';
import { hookLog, pick } from './runtime.js';
import { buildSessionQuery, currentBranch, type SessionQuery } from './session-query.js';
import { subagentQuery } from './subagent-query.js';
import { conventionsLine, flagOn, loadSkills, matchSkills, skillsBlock, slotsBlock } from './ambient.js';
import { claimInjected, readInjected } from '../sinks/logs/index.js';
import type { ScoredCandidate } from '../core/types.js';
import { sessionKey } from '../core/session-key.js';
import { judgePendingUse, recordPromptEvent, stageClock } from './usage/index.js';
import { injectedId, renderAnswer, renderResults, session$, shownResults } from './hook-session.js';
import { UPS_FETCH, wholeLearnings, type PromptPick } from './prompt-pick.js';
import { footer, sessionProblem, sessionStartRecall$ } from './session-start-recall.js';
import { preToolUseHook } from './action-recall.js';
import { warmActionTriggers } from './action-warm.js';
import { askedSteps, askedWork } from '../operators/action/index.js';

export { preToolUseHook };
export { LIKELY_RELEVANCE, POINTER_SUMMARY_SHARE, pointerBlock, unsurePointer, wholeLearnings, type PromptPick } from './prompt-pick.js';

const BASE: Omit<RecallCommand, 'query'> = DEFAULT_COMMAND;

export { HOOK_DEADLINE_SEC };

/** The project a hook works for: $CLAUDE_PROJECT_DIR, else the cwd the harness sent, else the process cwd. */
function projectCwd(ctx: HookContext, inputCwd: string | null): string {
  return path.resolve(ctx.env['CLAUDE_PROJECT_DIR'] || inputCwd || ctx.cwd);
}

const join = (...parts: string[]): string =>
  parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join('\n\n');

/** After the hooks that come before an agent acts: the tool-call hook's triggers, derived ahead of its first call. */
const warmToolCalls: HookSpec['afterAnswer'] = (input, ctx) => void warmActionTriggers(input, ctx);

export const sessionStartHook: HookSpec = {
  ...hookRow('session-start'),
  afterAnswer: warmToolCalls,
  run: (input, ctx) =>
    defer((): Observable<string> => {
      const cwd = projectCwd(ctx, pick(input, ['cwd']));
      const home = ctx.env['HOME'] || os.homedir();
      const real = (p: string): string => {
        try {
          return fs.realpathSync(p);
        } catch {
          return path.resolve(p);
        }
      };
      if (real(cwd) === real(home)) return of('');
      // Asynchronous: git may take seconds on a big or hostile repository, and the recall server
      // serves other projects meanwhile.
      return from(buildSessionQuery(cwd, ctx.stateDir, ctx.env)).pipe(switchMap((q) => sessionStartFor(ctx, input, cwd, home, q)));
    }),
};

/** The SessionStart answer once its query is known. */
function sessionStartFor(ctx: HookContext, input: Record<string, unknown>, cwd: string, home: string, q: SessionQuery): Observable<string> {
  const config = ctx.config;
  const tiered = flagOn(ctx.env, 'REFLECT_TIERED_INJECT');
  const ambient = join(
    flagOn(ctx.env, 'REFLECT_SLOTS') ? slotsBlock(config.dbPath, q.project) : '',
    tiered ? conventionsLine(config.dbPath, q.project) : '',
  );
  if (tiered) {
    const minScore = ctx.overrides.number('REFLECT_SKILL_TIER_MIN_SCORE');
    const skills = matchSkills(q.query, loadSkills(ctx.env['REFLECT_SKILLS_DIR'] || path.join(home, '.claude', 'skills')), minScore);
    if (skills.length) return of(join(ambient, skillsBlock(skills)));
  }
  if (!q.query) return of(ambient);
  // Scope resolution needs the branch of the project, not of wherever the hook process runs.
  const branch = ctx.env['RECALL_BRANCH'] ?? currentBranch(cwd);
  const env = { ...ctx.env, RECALL_BRANCH: branch };
  // The settings already read, with the project's branch (the only one of them that changes).
  const branched = { ...config, scope: { ...config.scope, branch } };
  return session$(
    ctx,
    cwd,
    env,
    (session) => {
      // Nothing to recall from (no KB, no notes, an unreadable index): the person is told, with the fix.
      ctx.notice = sessionProblem(session, env, home);
      return sessionStartRecall$(ctx, input, session, q).pipe(
        map(({ block, results }) => join(ambient, block, footer(session, results, block))),
      );
    },
    branched,
  );
}

/**
 * Prompts shorter than this carry too little to search for (the reference's value), unless they ask
 * for a git step or a kind of work: "commit this", "push it" are where a team's commit and push rules
 * apply, and they are all the prompt there is.
 */
export const MIN_PROMPT_CHARS = 12;

/** Whether a short prompt asks for a git step or a kind of work (operators/action: askedSteps, askedWork). */
const asksForStep = (prompt: string): boolean => askedSteps(prompt).size > 0 || askedWork(prompt).size > 0;

/** Candidates the prompt hook asks for before dedupe (the reference's value). */
export const PROMPT_FETCH = UPS_FETCH;

/**
 * The prompt hook's own selection from the recall's results: whole learnings among those this
 * session has not been given yet. The "already injected" check and the record happen under one
 * lock: concurrent prompts of a session must not both inject the same note.
 */
function selectFresh(
  ctx: HookContext,
  session: RecallSession,
  prompt: string,
  sessionId: string | null,
  results: readonly ScoredCandidate[],
  floor: number,
) {
  let picked: PromptPick & { degraded?: string[] } = { kept: [], pointer: null, block: '' };
  const render = (list: ScoredCandidate[]): string => renderResults(session, prompt, list, 0);
  // What this prompt gives is what it would give with nothing given yet, less what the session has:
  // the place of a learning it was already given is not refilled with the next one down, and the
  // pointer is the one this prompt would get anyway. Refilling padded a repeated prompt with weaker
  // notes it never called for (the same prompt sent twice got unrelated ones the second time, even
  // with the refill held to learnings over LIKELY_RELEVANCE: the estimate put one at 0.82). What was
  // given keeps its place but takes no budget: it is not sent again (wholeLearnings).
  const choose = (seen: ReadonlySet<string>): string[] => {
    picked = wholeLearnings(results, render, floor, seen, prompt);
    return [...picked.kept, ...(picked.pointer ? [picked.pointer] : [])].map(injectedId);
  };
  if (sessionId && results.length > 0 && claimInjected(ctx.stateDir, sessionId, choose, undefined, ctx.deadlineMs - ctx.now()) === null) {
    choose(readInjected(ctx.stateDir, sessionId));
    hookLog(
      ctx,
      'user-prompt-submit',
      `could not record injected ids for session ${sessionKey(sessionId)} (lock busy or state dir not writable)`,
    );
    return { ...picked, degraded: ['session-set:error'] };
  } else if (!sessionId) choose(new Set());
  return picked;
}

export const userPromptSubmitHook: HookSpec = {
  ...hookRow('user-prompt-submit'),
  afterAnswer: warmToolCalls,
  run: (input, ctx) =>
    defer((): Observable<string> => {
      // Copilot ignores the output of userPromptSubmitted; only userPromptTransformed (which sends the
      // model-facing `transformedPrompt`) can add to the prompt. Anywhere else, injecting (and recording
      // ids as injected) would be a lie.
      const sessionId = pick(input, ['session_id', 'sessionId']);
      // Whether the notes of this session's previous prompt were used, from what the assistant wrote since.
      judgePendingUse(ctx, sessionId);
      if (ctx.harness === 'copilot' && typeof input['transformedPrompt'] !== 'string') return of('');
      const prompt = pick(input, ['prompt', 'user_prompt', 'userPrompt']) ?? '';
      if (prompt.length < MIN_PROMPT_CHARS && !asksForStep(prompt)) return of('');
      const cwd = projectCwd(ctx, pick(input, ['cwd']));
      return session$(ctx, cwd, ctx.env, (session) => {
        // Every candidate under the floor is gone before dedupe: the refill can never pad with noise.
        const clock = stageClock();
        const cmd: RecallCommand = {
          ...BASE,
          query: prompt,
          limit: UPS_FETCH,
          maxChars: 0,
          sessionId,
          floor: session.config.floors.userPrompt,
        };
        // The deadline reaches the recall's bookkeeping too: its locks wait no longer than it leaves.
        const runOpts = { caller: 'user-prompt-submit', trace: clock.sink, deadlineMs: ctx.deadlineMs };
        return session.outcome$(cmd, runOpts).pipe(
          map((res) => {
            const picked = selectFresh(ctx, session, prompt, sessionId, res.outcome?.results ?? [], cmd.floor ?? 0);
            // Logged as given: the recall log line says what this hook injected (whole or as a pointer), not what it fetched.
            const given = [...picked.kept, ...(picked.pointer ? [picked.pointer] : [])];
            if (res.outcome) session.record(cmd, res.outcome, given, runOpts);
            recordPromptEvent(ctx, { query: prompt, input, sessionId, res, picked, stages: clock.stages(), degraded: picked.degraded });
            return given.length === 0 ? '' : picked.block;
          }),
        );
      });
    }),
};

export const subagentStartHook: HookSpec = {
  ...hookRow('subagent-start'),
  afterAnswer: warmToolCalls,
  run: (input, ctx) =>
    defer((): Observable<string> => {
      const fixed = ctx.env[hookRow('subagent-start').fixedContextEnv];
      if (fixed !== undefined) return of(fixed.trim());
      const cwd = pick(input, ['cwd']) || ctx.cwd;
      const query = subagentQuery(input);
      if (!query) return of('');
      const limit = ctx.overrides.number('REFLECT_SUBAGENT_RECALL_LIMIT');
      const maxChars = ctx.overrides.number('REFLECT_SUBAGENT_RECALL_MAX_CHARS');
      return session$(ctx, projectCwd(ctx, cwd), ctx.env, (session) => {
        const cmd: RecallCommand = {
          ...BASE,
          query,
          limit,
          maxChars,
          gapLog: false,
          followup: false,
          floor: session.config.floors.subagent,
        };
        const runOpts = { caller: 'subagent-start' };
        return session.outcome$(cmd, runOpts).pipe(
          map(({ outcome }) => {
            const block = renderAnswer(session, cmd, outcome);
            if (outcome) session.record(cmd, outcome, shownResults(outcome.results, block), runOpts);
            return block;
          }),
        );
      });
    }),
};

/** The handler of each hook in the hook table (the type makes a missing one a compile error). */
export const HOOKS: Readonly<Record<HookName, HookSpec>> = {
  'session-start': sessionStartHook,
  'user-prompt-submit': userPromptSubmitHook,
  'subagent-start': subagentStartHook,
  'pre-tool-use': preToolUseHook,
};
