/**
 * The PreToolUse hook: the learnings about the action the agent is about to take (the command it
 * runs, the file it edits), put in front of it just before it does.
 *
 * It fires before every tool call, so it is built for precision and speed:
 * - no recall pipeline: the call is matched against each note's triggers (operators/action), kept
 *   per KB index version in this process (the recall server keeps them across calls);
 * - a learning is given at most once a session, from the same set the prompt hook records into;
 * - it never decides the call (no permissionDecision, no updatedInput): its envelope carries context only;
 * - `pre_tool_use = false` (RECALL_PRE_TOOL_USE=0) turns it off; its own deadline is
 *   RECALL_PRE_TOOL_TIMEOUT (2 s), far inside what the harness is told.
 * What it gave is one `kind: "hook"` line in the recall log with the tool call, scrubbed.
 */
import { defer, from, map, of, type Observable } from 'rxjs';
import type { Note } from '../core/note/index.js';
import type { ScoredCandidate } from '../core/types.js';
import { errorMessage } from '../core/errors.js';
import { isFalsyWord } from '../core/truthy.js';
import { sessionKey } from '../core/session-key.js';
import {
  actionSummary,
  clearsBar,
  matchAction,
  readToolCall,
  stemsOf,
  MAX_ACTION_NOTES,
  type ActionMatch,
  type ToolAction,
} from '../operators/action/index.js';
import type { NoteSet, RecallSession } from '../pipeline/run.js';
import { IN_PROCESS_MAX_NOTES, TriggersLate, forgetTriggers, kbTriggers, type BuildOptions, type KbTriggers } from './action-triggers.js';
import { afterSuccessions } from './action-successions.js';
import { infoOf, wordCounts } from '../sources/query/index.js';
import { lastUserPrompt } from '../sources/transcript/index.js';
import { claimInjected, readInjected } from '../sinks/logs/index.js';
import { scrub } from '../sinks/scrub/index.js';
import { hookRow } from './hook-table.js';
import { RUN_CUT_BEFORE_MS, RUN_PLAN_BEFORE_MS } from '../io/hook-input.js';
import { hookLog, pick, type HookContext, type HookSpec } from './runtime.js';
import { injectedId, renderResults, session$ } from './hook-session.js';
import { recordAction } from './action-log.js';

export { giveWayToReplacements, giveWayToSuccessors } from './action-successions.js';

/** Characters the action hook may inject (hook table). */
const ACTION_CHARS = hookRow('pre-tool-use').budgetChars;

/** Whether the action hook is switched on (on unless `pre_tool_use = false` / RECALL_PRE_TOOL_USE=0). */
export function preToolUseOn(env: HookContext['env']): boolean {
  return !isFalsyWord(env['RECALL_PRE_TOOL_USE']);
}

/** The project folder the hook reads for a payload: $CLAUDE_PROJECT_DIR, else the payload's cwd, else the call's. */
export function actionCwd(ctx: Pick<HookContext, 'env' | 'cwd'>, input: Record<string, unknown>): string {
  return ctx.env['CLAUDE_PROJECT_DIR'] || pick(input, ['cwd']) || ctx.cwd;
}

/** How much a stem says in everyday English; without the word counts every stem counts fully (and `warn` says so). */
export function wordInfo(warn: (line: string) => void): (stem: string) => number {
  try {
    const counts = wordCounts();
    return (stem) => infoOf(counts, stem);
  } catch (err) {
    warn(`word counts unavailable, every word counts as rare: ${errorMessage(err)}`);
    return () => 1;
  }
}

/** A matched note as the renderer takes it (the score is the action evidence, not a recall's relevance). */
function asCandidate(note: Note, m: ActionMatch): ScoredCandidate {
  const boosts = { confidence: 1, recency: 1, tags: 1, proof: 1, project: 1, domain: 1, authority: 1, speculative: 1 };
  return {
    note,
    rrf: 0,
    evidence: m.score,
    ranks: {},
    ce: null,
    base: m.score,
    relevance: Math.min(1, m.score / 4),
    relevanceSource: 'lexical',
    relevanceFactor: 1,
    titleFactor: 1,
    boosts,
    score: m.score,
  };
}

export interface ActionMatchOptions {
  info: (stem: string) => number;
  /** Told when a KB's successions could not be read (its stale notes are then given as matched). */
  warn?: (line: string) => void;
  /** The user's last prompt ('' = none). */
  prompt: string;
  /** Give notes under the threshold too, and more of them (a trace shows the near misses). */
  threshold?: number;
  max?: number;
  /**
   * When a KB's triggers must be ready (epoch ms), in a process that ends with its call: a build
   * still deriving then stops (kbTriggers' TriggersLate) instead of running past the deadline.
   */
  stopAt?: number;
}

/** The notes of every KB of the session the call matches, best first across KBs. */
export async function actionMatches(
  session: RecallSession,
  action: ToolAction,
  cwd: string,
  o: ActionMatchOptions,
): Promise<{ note: Note; match: ActionMatch }[]> {
  const contextStems = o.prompt ? stemsOf(o.prompt) : undefined;
  const out: { note: Note; match: ActionMatch }[] = [];
  // Every KB's notes are read now, while the session is open; the builds may finish later.
  const sets = session.noteSets();
  const settled = await kbsOf(sets, o);
  settled.forEach((r, k) => {
    // A KB whose triggers are not ready (TriggersLate) or could not be read gives nothing; the
    // others are matched all the same.
    if (r.status === 'rejected') return o.warn?.(`${sets[k]!.root}: ${errorMessage(r.reason)}`);
    const kb = r.value;
    let ms: ActionMatch[];
    try {
      // Every note the call reaches, below the bar too: a stale note's replacement is among them.
      const followed: ActionMatch[] = [];
      const reached = matchAction(kb.index, action, cwd, {
        info: o.info,
        ...(contextStems ? { contextStems } : {}),
        threshold: 0,
        max: REACHED,
        followed,
      });
      ms = afterSuccessions(reached, followed, kb, sets[k]!, o.warn ?? (() => {}));
    } catch (err) {
      forgetTriggers(sets[k]!);
      return o.warn?.(`${sets[k]!.root}: triggers failed (${errorMessage(err)}); derived again next time`);
    }
    for (const m of ms.filter((x) => clearsBar(x, o.threshold)).slice(0, o.max ?? MAX_ACTION_NOTES)) {
      const note = kb.notes.get(m.id);
      if (note) out.push({ note, match: m });
    }
  });
  return out.sort((a, b) => b.match.score - a.match.score);
}

/**
 * Every KB's triggers, settled. In the recall server all builds start now (each KB's notes are read
 * while the session is open) and run side by side. Where the process ends with the call (a stop
 * time), the KBs are read one after another, smallest first, within IN_PROCESS_MAX_NOTES in all: a
 * blocking read of one KB's notes never sits beside another's, and those past the bound are left to
 * the recall server.
 */
async function kbsOf(sets: readonly NoteSet[], o: ActionMatchOptions): Promise<PromiseSettledResult<KbTriggers>[]> {
  const opts = (): BuildOptions => ({ ...(o.warn && { warn: o.warn }), ...(o.stopAt !== undefined && { stop: { at: o.stopAt } }) });
  if (o.stopAt === undefined) return Promise.allSettled(sets.map((set) => kbTriggers(set, opts())));
  const out: PromiseSettledResult<KbTriggers>[] = [];
  let room = IN_PROCESS_MAX_NOTES;
  const order = sets.map((set, k) => ({ set, k })).sort((a, b) => (a.set.size ?? 0) - (b.set.size ?? 0));
  for (const { set, k } of order) {
    const size = set.size ?? 0;
    if (size > room) {
      out[k] = {
        status: 'rejected',
        reason: new TriggersLate(
          0,
          size,
          `read: more than a hook reads in its own process (${IN_PROCESS_MAX_NOTES} in all), the recall server matches them`,
        ),
      };
      continue;
    }
    room -= size;
    [out[k]] = await Promise.allSettled([kbTriggers(set, opts())]);
  }
  return out;
}

/** Notes a call reaches that are looked at for successions. */
const REACHED = 20;

/** What a call runs or writes, as the matcher read it: what its evidence quotes (scrub along this). */
export function callText(action: ToolAction): string {
  return `${action.raw}\n${action.text}`;
}

/** The one-line record of the call for logs: the command or the tool and its files, scrubbed. */
export function scrubbedCall(action: ToolAction): string {
  return scrub(actionSummary(action, 600)).slice(0, 300);
}

/** The hook log's line when the session's set could not be written (the session id hashed, as everywhere). */
const unrecorded = (sessionId: string): string =>
  `could not record injected ids for session ${sessionKey(sessionId)} (lock busy or state dir not writable)`;

/**
 * How the hook matches: its log takes what degraded; a process that ends with the call stops
 * deriving triggers when its run is cut (RUN_CUT_BEFORE_MS before the deadline), not at the end its
 * plan aims for: a first call spends most of its time building the index, and deriving 40 notes past
 * the planned end still answers in time.
 */
function hookMatchOptions(ctx: HookContext, prompt: string): ActionMatchOptions {
  const warn = (l: string): void => hookLog(ctx, 'pre-tool-use', l);
  const stopAt = ctx.deadlineMs + RUN_PLAN_BEFORE_MS - RUN_CUT_BEFORE_MS;
  return { info: wordInfo(warn), prompt, warn, ...(ctx.outlivesCall ? {} : { stopAt }) };
}

export const preToolUseHook: HookSpec = {
  ...hookRow('pre-tool-use'),
  run: (input, ctx) =>
    defer((): Observable<string> => {
      if (!preToolUseOn(ctx.env)) return of('');
      const action = readToolCall(input);
      if (!action) return of('');
      const sessionId = pick(input, ['session_id', 'sessionId']);
      const cwd = actionCwd(ctx, input);
      const transcript = pick(input, ['transcript_path', 'transcriptPath']);
      const started = ctx.now();
      const opts = hookMatchOptions(ctx, transcript ? lastUserPrompt(transcript) : '');
      return session$(ctx, cwd, ctx.env, (session) =>
        from(actionMatches(session, action, cwd, opts)).pipe(
          map((matched) => {
            // The header names the call as the agent will see it: scrubbed, like every record of it.
            const call = scrubbedCall(action);
            let kept: { note: Note; match: ActionMatch }[] = [];
            let block = '';
            let given: ReadonlySet<string> = new Set();
            const choose = (seen: ReadonlySet<string>): string[] => {
              kept = [];
              block = '';
              given = seen;
              for (const m of matched) {
                if (kept.length >= MAX_ACTION_NOTES) break;
                const id = injectedId(asCandidate(m.note, m.match));
                if (seen.has(id) || seen.has(m.note.key)) continue;
                const next = renderResults(
                  session,
                  call,
                  [...kept, m].map((k) => asCandidate(k.note, k.match)),
                  0,
                );
                if (next.length > ACTION_CHARS && kept.length > 0) continue;
                kept.push(m);
                block = next;
              }
              return kept.map((k) => injectedId(asCandidate(k.note, k.match)));
            };
            const degraded: string[] = [];
            // The wait for the session's lock blocks the thread (the deadline's timer with it): it
            // waits no longer than the hook's plan leaves, then goes on without the once-a-session
            // guarantee and says so in the hook's line.
            if (
              sessionId &&
              matched.length > 0 &&
              claimInjected(ctx.stateDir, sessionId, choose, undefined, ctx.deadlineMs - ctx.now()) === null
            ) {
              choose(readInjected(ctx.stateDir, sessionId));
              hookLog(ctx, 'pre-tool-use', unrecorded(sessionId));
              degraded.push('session-set:error');
            } else if (!sessionId) choose(new Set());
            const ms = ctx.now() - started;
            if (matched.length > 0)
              recordAction(ctx, { sessionId, session, call, source: callText(action), matched, kept, given, block, ms, degraded });
            return block;
          }),
        ),
      );
    }),
};
