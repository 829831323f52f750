/**
 * The prompt hook's record of what it gave the agent, and the verdict on whether it was used.
 *
 * - recordPromptEvent: after the hook chose its notes, one `kind: "hook"` line in the recall log
 *   (what `recall view` shows) and, when the harness sent a transcript, the injected notes' clues
 *   put aside with the transcript's current size;
 * - judgePendingUse: at the session's next hook, the assistant's text written since then (a bounded
 *   read from that offset) is compared with the clues, and one `kind: "used"` line per note says
 *   used or not and why. Only the verdict and the evidence phrase (a phrase of the note) are kept.
 *
 * Both are bookkeeping: they never throw and never change the answer; a failure goes to the hook log.
 */
import type { ScoredCandidate } from '../../core/types.js';
import type { RunResult } from '../../pipeline/run.js';
import type { RefreshReport } from '../../sources/index/index.js';
import { judgeUse, prepareText, useClues } from '../../core/helpfulness/index.js';
import { errorMessage } from '../../core/errors.js';
import { sessionKey } from '../../core/session-key.js';
import { str } from '../../core/note/index.js';
import type { TraceEvent, TraceSink } from '../../operators/trace-stage.js';
import { readAssistantAfter, transcriptSize } from '../../sources/transcript/index.js';
import { CHARS_PER_TOKEN, pyLen } from '../../sinks/economics.js';
import { addPending, logHookEvent, logUseEvent, takePending, type InjectedNote } from '../../sinks/hook-events/index.js';
import { readInjected } from '../../sinks/logs/index.js';
import { safeId } from '../../sinks/safe-text.js';
import { hookLog, pick, type HookContext } from '../runtime.js';
import { injectedId } from '../hook-session.js';

/** Time a judgement needs left before the deadline; with less, it waits for the next hook. */
const JUDGE_RESERVE_MS = 2_000;

/**
 * Collects the time each stage of a recall took, from the trace taps on the same operators. Its sink
 * only times the stages (`timesOnly`): the taps build no event bodies for it. Fed full events (the
 * viewer's), it gives the same times.
 */
export function stageClock(): { sink: TraceSink; stages: () => { stage: string; ms: number }[] } {
  const events: TraceEvent[] = [];
  const sink: TraceSink = Object.assign((e: TraceEvent) => void events.push(e), { timesOnly: true });
  return {
    sink,
    stages: () => {
      const out: { stage: string; ms: number }[] = [];
      let prev = events[0]?.t ?? 0;
      for (const e of events) {
        const stage = e.stage === 'time' ? e.of : e.stage;
        // The arms run side by side: "arms" is the time to the slowest, and each arm reports its own wall time.
        if (stage === 'arm') {
          const arm = e as { arm: string; ms: number; t: number };
          if (out.every((s) => s.stage !== 'arms')) out.push({ stage: 'arms', ms: Math.round(e.t - prev) });
          out.push({ stage: `arm:${arm.arm}`, ms: Math.round(arm.ms) });
        } else if (stage !== 'start') out.push({ stage, ms: Math.round(e.t - prev) });
        prev = e.t;
      }
      return out;
    },
  };
}

/** Tokens of each note's entry in the injected block (the entry starts at its `- **[id]**` line). */
function entryTokens(block: string): Map<string, number> {
  const out = new Map<string, number>();
  // A whole learning's entry starts "- **[id]**", a pointer's "- [id]".
  for (const part of block.split(/^(?=- (?:\*\*)?\[)/m)) {
    const m = /^- (?:\*\*\[(.+?)\]\*\*|\[(.+?)\])/.exec(part);
    if (m) out.set((m[1] ?? m[2])!, Math.max(1, Math.floor(pyLen(part.trimEnd()) / CHARS_PER_TOKEN)));
  }
  return out;
}

export interface PromptEvent {
  query: string;
  input: Record<string, unknown>;
  sessionId: string | null;
  /** The recall (every result above the floor, best first) and what of it was injected (`kept`, as `block`). */
  res: Pick<RunResult, 'outcome' | 'scope' | 'refresh'>;
  picked: { kept: readonly ScoredCandidate[]; pointer?: ScoredCandidate | null; block: string };
  stages: { stage: string; ms: number }[];
  /** What the hook itself went without (`stage:reason`), beside the recall's own degradations. */
  degraded?: readonly string[];
}

/** Whether the index was left part-built at the deadline (a background refresher goes on with it). */
const stillIndexing = (refresh: RefreshReport | null): refresh is RefreshReport => refresh !== null && !refresh.complete;

/** Why a prompt found no notes at all: a KB whose index is still being built is not an empty KB. */
export function nothingToRecall(refresh: RefreshReport | null): string {
  if (!stillIndexing(refresh)) return 'no notes to recall from (the KB is empty or missing)';
  return refresh.pending > 0
    ? `the index is still being built (${refresh.pending} files left for a background refresher): nothing to recall yet`
    : 'the index holds no notes yet and could not be refreshed now (another process is refreshing it, or it cannot be written)';
}

/** The degradations of the recall as `stage:reason`; with no recall, an index left part-built. */
function degradedOf(res: PromptEvent['res']): string[] {
  if (res.outcome) return res.outcome.degraded.map((d) => `${d.stage}:${d.reason}`);
  return stillIndexing(res.refresh) ? ['index:unavailable'] : [];
}

/** The hook line's record of each learning given: whole, or as the one-line pointer. */
function injectedNotes(given: readonly ScoredCandidate[], pointer: ScoredCandidate | null, block: string): InjectedNote[] {
  const tokens = entryTokens(block);
  return given.map((c) => ({
    id: injectedId(c),
    title: c.note.title,
    relevance: Number(c.relevance.toFixed(3)),
    score: Number(c.score.toPrecision(4)),
    tokens: tokens.get(safeId(c.note.displayId)) ?? 0,
    ...(c === pointer ? { pointer: true as const } : {}),
  }));
}

/** Writes the hook line and puts the injected notes aside for their verdict. Never throws. */
export function recordPromptEvent(ctx: HookContext, ev: PromptEvent): void {
  try {
    const { block } = ev.picked;
    const pointer = ev.picked.pointer ?? null;
    const kept = [...ev.picked.kept, ...(pointer ? [pointer] : [])];
    const outcome = ev.res.outcome;
    const results = outcome?.results ?? [];
    const keptIds = new Set(kept.map(injectedId));
    const given = ev.sessionId ? readInjected(ctx.stateDir, ev.sessionId) : new Set<string>();
    const injected = injectedNotes(kept, pointer, block);
    const leftOut = results.filter((c) => !keptIds.has(injectedId(c)));
    const deduped = leftOut.filter((c) => given.has(injectedId(c)) || given.has(c.note.key)).map(injectedId);
    const logged = logHookEvent(
      ctx.stateDir,
      {
        hook: 'user-prompt-submit',
        harness: ctx.harness,
        session: ev.sessionId,
        kb: ev.res.scope?.root ?? null,
        query: ev.query,
        injected,
        deduped,
        over_budget: leftOut.map(injectedId).filter((id) => !deduped.includes(id)),
        abstained: outcome ? outcome.abstained : nothingToRecall(ev.res.refresh),
        tokens: block ? Math.floor(pyLen(block) / CHARS_PER_TOKEN) : 0,
        stages: ev.stages,
        recall_ms: Math.round(outcome?.ms ?? 0),
        hook_ms: Math.round(ctx.now() - ctx.startedMs),
        degraded: [...degradedOf(ev.res), ...(ev.degraded ?? [])],
      },
      ctx.now(),
    );
    if ('error' in logged) return hookLog(ctx, 'user-prompt-submit', logged.error);
    const transcript = pick(ev.input, ['transcript_path', 'transcriptPath']);
    const offset = transcript ? transcriptSize(transcript) : null;
    if (!ev.sessionId || !transcript || offset === null || kept.length === 0) return;
    const clues = kept.map((c) =>
      useClues(
        {
          id: injectedId(c),
          title: c.note.title,
          keyInsight: c.note.keyInsight,
          fix: str(c.note.frontmatter['fix']),
          howToApply: c.note.howToApply,
        },
        ev.query,
      ),
    );
    const pending = { ts: logged.ts, event: logged.event, transcript, offset, clues };
    const err = addPending(ctx.stateDir, ev.sessionId, pending, ctx.deadlineMs - ctx.now());
    if (err) hookLog(ctx, 'user-prompt-submit', err);
  } catch (err) {
    hookLog(ctx, 'user-prompt-submit', `hook event not recorded: ${errorMessage(err)}`);
  }
}

/** Judges the session's injections waiting for a verdict against what the assistant wrote since. Never throws. */
export function judgePendingUse(ctx: HookContext, sessionId: string | null): void {
  // A transcript that did not answer (a hung mount) is not read again for earlier prompts' verdicts.
  if (!sessionId || ctx.unreadableTranscript || ctx.deadlineMs - ctx.now() < JUDGE_RESERVE_MS) return;
  try {
    for (const p of takePending(ctx.stateDir, sessionId)) {
      const slice = readAssistantAfter(p.transcript, p.offset);
      if (slice.size === 0) {
        hookLog(
          ctx,
          'user-prompt-submit',
          `helpfulness: transcript of session ${sessionKey(sessionId)} unreadable; ${p.clues.length} verdicts skipped`,
        );
        continue;
      }
      const text = prepareText(slice.text);
      for (const c of p.clues) {
        const err = logUseEvent(
          ctx.stateDir,
          { session: sessionId, id: c.id, event: p.event ?? '', injected_ts: p.ts, ...judgeUse(c, text) },
          ctx.now(),
        );
        if (err) hookLog(ctx, 'user-prompt-submit', err);
      }
    }
  } catch (err) {
    hookLog(ctx, 'user-prompt-submit', `helpfulness not judged: ${errorMessage(err)}`);
  }
}
