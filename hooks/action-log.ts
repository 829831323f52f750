/**
 * The recall log's line for a tool call that matched a learning (the PreToolUse hook): the call,
 * scrubbed; what was given, deduplicated or over budget; and each match's evidence, its label kept
 * and what matched scrubbed along the call's own text.
 */
import type { Note } from '../core/note/index.js';
import { errorMessage } from '../core/errors.js';
import type { ActionMatch } from '../operators/action/index.js';
import type { RecallSession } from '../pipeline/run.js';
import { CHARS_PER_TOKEN, pyLen } from '../sinks/economics.js';
import { logHookEvent } from '../sinks/hook-events/index.js';
import { scrubEvidence } from '../sinks/scrub/index.js';
import { hookLog, type HookContext } from './runtime.js';

/** One `kind: "hook"` line for a call that matched something: the call (scrubbed), what was given, what was left out. Never throws. */
export function recordAction(
  ctx: HookContext,
  r: {
    sessionId: string | null;
    session: RecallSession;
    call: string;
    /** The call's own text, unscrubbed: the evidence quotes it, and a secret's pieces are scrubbed wherever they appear. */
    source: string;
    matched: readonly { note: Note; match: ActionMatch }[];
    kept: readonly { note: Note; match: ActionMatch }[];
    /** The ids the session had been given before this call. */
    given: ReadonlySet<string>;
    block: string;
    ms: number;
    /** What went without (`stage:reason`), as the prompt hook's line says it. */
    degraded?: readonly string[];
  },
): void {
  const { sessionId, session, call, matched, kept, block, ms } = r;
  try {
    const keptIds = new Set(kept.map((k) => k.note.key));
    const idOf = (n: Note): string => (n.displayId !== '?' ? n.displayId : n.key);
    const left = matched.filter((m) => !keptIds.has(m.note.key));
    const wasGiven = (n: Note): boolean => r.given.has(idOf(n)) || r.given.has(n.key);
    const logged = logHookEvent(
      ctx.stateDir,
      {
        hook: 'pre-tool-use',
        harness: ctx.harness,
        session: sessionId,
        kb: session.scope.root ?? null,
        query: call,
        injected: kept.map((k) => ({
          id: idOf(k.note),
          title: k.note.title,
          relevance: Number(Math.min(1, k.match.score / 4).toFixed(3)),
          score: k.match.score,
          tokens: Math.max(1, Math.floor(pyLen(block) / CHARS_PER_TOKEN / Math.max(1, kept.length))),
        })),
        deduped: left.filter((m) => wasGiven(m.note)).map((m) => idOf(m.note)),
        over_budget: left.filter((m) => !wasGiven(m.note)).map((m) => idOf(m.note)),
        abstained: kept.length > 0 ? null : 'every matching learning was already given in this session',
        tokens: block ? Math.floor(pyLen(block) / CHARS_PER_TOKEN) : 0,
        stages: [{ stage: 'match', ms: Math.round(ms) }],
        recall_ms: Math.round(ms),
        hook_ms: Math.round(ctx.now() - ctx.startedMs),
        degraded: [...(r.degraded ?? [])],
        matched: matched.map((m) => ({
          id: idOf(m.note),
          score: m.match.score,
          why: m.match.why.slice(0, 8).map((w) => scrubEvidence(w, r.source)),
        })),
      },
      ctx.now(),
    );
    if ('error' in logged) hookLog(ctx, 'pre-tool-use', logged.error);
  } catch (err) {
    hookLog(ctx, 'pre-tool-use', `hook event not recorded: ${errorMessage(err)}`);
  }
}
