/**
 * A hook's recall session as a stream: opened on subscribe, closed when the stream ends or is
 * unsubscribed (the hook's deadline), with the settings the hook already read and the effects it
 * was given. What the hooks render and record of a recall's outcome is built here too.
 */
import { Observable, type Subscription } from 'rxjs';
import { openSession, scopeJson, type RecallCommand, type RecallSession } from '../pipeline/run.js';
import type { RecallConfig } from '../pipeline/config/index.js';
import { renderOutcome } from '../pipeline/session/index.js';
import { renderMarkdown } from '../sinks/render/index.js';
import { safeId } from '../sinks/safe-text.js';
import type { RecallOutcome, ScoredCandidate } from '../core/types.js';
import { hookLog, type HookContext } from './runtime.js';

/**
 * `fn` over a session opened for `cwd`: the session is closed when `fn`'s stream completes, fails
 * or is unsubscribed. Unsubscribed while the session is still opening, it is closed as soon as it
 * is open and `fn` never runs. `config` is the hook's settings (read once), or a variant of them.
 */
export function session$<T>(
  ctx: HookContext,
  cwd: string,
  env: HookContext['env'],
  fn: (s: RecallSession) => Observable<T>,
  config: RecallConfig = ctx.config,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    let session: RecallSession | null = null;
    let inner: Subscription | null = null;
    let done = false;
    const opts = { kb: null, global: false, allBranches: false, verbose: false, deadlineMs: ctx.deadlineMs };
    const io = { env, cwd, now: ctx.now, warn: (l: string) => hookLog(ctx, 'recall', l), config, ...ctx.recallIo };
    openSession(opts, io).then(
      (s) => {
        if (done) return s.close();
        session = s;
        inner = fn(s).subscribe(subscriber);
      },
      (err: unknown) => subscriber.error(err),
    );
    return () => {
      done = true;
      inner?.unsubscribe();
      session?.close();
    };
  });
}

/** A recall's results as the hooks render them (markdown within `maxChars`, 0 = no limit). */
export function renderResults(session: RecallSession, query: string, results: ScoredCandidate[], maxChars: number): string {
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

/** A recall's outcome rendered as a markdown recall renders it for `cmd` (the session-start and subagent blocks). */
export function renderAnswer(session: RecallSession, cmd: RecallCommand, outcome: RecallOutcome | null): string {
  if (!outcome) return '';
  const p = outcome.persona;
  // As a markdown recall answers a persona question: the one field, not a list of learnings.
  if (p) return `${p.field_name}: ${p.value} (persona, confidence ${p.confidence.toFixed(2)})\n`;
  return renderOutcome(cmd, outcome, outcome.results, { config: session.config, glyphs: session.glyphs(), kb: scopeJson(session.scope) });
}

/** The results a rendered block shows (a learning cut by the budget is not shown). */
export function shownResults(results: readonly ScoredCandidate[], block: string): ScoredCandidate[] {
  // The block shows ids as safeId() made them.
  const shownIds = new Set([...block.matchAll(/^- \*\*\[(.+?)\]\*\*/gm)].map((m) => m[1]));
  return results.filter((r) => shownIds.has(safeId(r.note.displayId)));
}

/** The id a session's injected set knows a learning by. */
export const injectedId = (c: ScoredCandidate): string => (c.note.displayId !== '?' ? c.note.displayId : c.note.key);
