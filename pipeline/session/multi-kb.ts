/**
 * Several KBs searched together (`recall --kb A --kb B QUERY`): each KB runs the whole recall
 * pipeline on its own index (its own term weights, relevance estimate and floor), and the ranked
 * lists are fused with reciprocal rank fusion (k = 60, as the arms are) weighted by each result's
 * absolute relevance: ranks say how a KB orders its own notes, relevance (calibrated, the same scale
 * in every KB) says how two KBs' notes compare; native scores, which are relative to each KB's
 * candidates, are never compared. A note found in two KBs (one id, one text) counts once, with both ranks; two files declaring one id stay two. Weak matches are fused the same way; nothing is returned only when every KB abstains.
 *
 * With several KBs a result's `path` is absolute (the KB-relative path would not say which KB).
 */
import path from 'node:path';
import { concat, defer, lastValueFrom, map, reduce, tap, type Observable } from 'rxjs';
import type { TraceEvent } from '../../operators/trace-stage.js';
import { openSession } from './session.js';
import { bookkeeping } from './bookkeeping.js';
import { degradationLines, scopeJson } from './render-outcome.js';
import type { RecallAnswer, RecallCommand, RecallSession, RunIo, RunOptions, RunResult } from '../command.js';
import type { KbSources } from '../kb-sources/index.js';
import type { ArmOutcome, RecallOutcome, ScoredCandidate } from '../../core/types.js';
import { renderOutcome } from './render-outcome.js';
import { RRF_K } from '../../core/rrf.js';
import { scrubAlong } from '../../sinks/scrub/index.js';

/**
 * Relevance-weighted reciprocal rank fusion of ranked lists by note: its key and its text, so one
 * note copied into two KBs counts once while two different files that declare one id (a learnings
 * note and a memory file both `id: deploy`) stay two results. The first list that has a note supplies it.
 */
export function fuseLists(lists: readonly ScoredCandidate[][]): ScoredCandidate[] {
  const fused = new Map<string, { c: ScoredCandidate; rrf: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((c, i) => {
      const id = `${c.note.key}\0${c.note.contentHash}`;
      const prev = fused.get(id);
      const w = (c.relevance > 0 ? c.relevance : 1e-3) / (RRF_K + i + 1);
      if (prev) prev.rrf += w;
      else fused.set(id, { c, rrf: w, first: order++ });
    });
  }
  return [...fused.values()].sort((a, b) => b.rrf - a.rrf || b.c.relevance - a.c.relevance || a.first - b.first).map((f) => f.c);
}

function withAbsolutePath(c: ScoredCandidate, root: string): ScoredCandidate {
  return { ...c, note: { ...c.note, path: path.join(root, c.note.path) } };
}

/** Arms summed over KBs: hits added, the slowest time, ok when any KB's arm was. */
function mergeArms(all: readonly ArmOutcome[][]): ArmOutcome[] {
  const out = new Map<string, ArmOutcome>();
  for (const arms of all) {
    for (const a of arms) {
      const prev = out.get(a.arm);
      if (!prev) out.set(a.arm, { ...a, hits: [...a.hits] });
      else
        out.set(a.arm, {
          ...prev,
          hits: [...prev.hits, ...a.hits],
          ms: Math.max(prev.ms, a.ms),
          status: prev.status === 'ok' || a.status === 'ok' ? 'ok' : prev.status,
        });
    }
  }
  return [...out.values()];
}

type KbOutcome = { session: RecallSession; outcome: RecallOutcome };

/** A KB as degradations and abstentions name it: its folder name, or the harness whose memory it is. */
const kbLabel = (o: { session: RecallSession }): string =>
  o.session.scope.kind === 'claude-memory' || o.session.scope.kind === 'codex-memory'
    ? o.session.scope.kind
    : path.basename(o.session.scope.root);

/**
 * The weak matches without any whose id is already a result. Two KBs may hold notes of one id (a
 * copied KB, an older copy kept elsewhere), each ranked by its own KB: one could clear the floor in
 * its KB and the other not in its own, and the answer listed the id as a result and again as a weak
 * match, two lines a reader cannot tell apart. (Two results of one id stay: they are two files,
 * each shown in full; spec/pipeline/zero-config-ids.test.ts.)
 */
function weakNotShown(weak: readonly ScoredCandidate[], results: readonly ScoredCandidate[]): ScoredCandidate[] {
  const shown = new Set(results.map((c) => c.note.key));
  return weak.filter((c) => !shown.has(c.note.key));
}

/** The KBs' outcomes as one: results and weak matches fused, arms merged, degradations named by KB. */
function fuseOutcomes(cmd: RecallCommand, outcomes: readonly KbOutcome[], limit: number): RecallOutcome {
  const fusedResults = fuseLists(outcomes.map((o) => o.outcome.results.map((c) => withAbsolutePath(c, o.session.scope.root))));
  const results = fusedResults.slice(0, limit);
  const fusedWeak = fuseLists(outcomes.map((o) => o.outcome.weak.map((c) => withAbsolutePath(c, o.session.scope.root))));
  const weak = weakNotShown(fusedWeak, fusedResults);
  const base = outcomes[0]?.outcome;
  return {
    query: cmd.query,
    mode: cmd.mode,
    results,
    ranked: fuseLists(outcomes.map((o) => o.outcome.ranked)),
    oodGated: outcomes.length > 0 && outcomes.every((o) => o.outcome.oodGated),
    coverage: base?.coverage ?? null,
    temporal: base?.temporal ?? null,
    cacheTier: null,
    arms: mergeArms(outcomes.map((o) => o.outcome.arms)),
    degraded: outcomes.flatMap((o) => o.outcome.degraded.map((d) => ({ ...d, stage: `${d.stage} [${kbLabel(o)}]` }))),
    drops: outcomes.flatMap((o) => o.outcome.drops),
    persona: null,
    floor: base?.floor ?? 0,
    abstained:
      results.length === 0 && outcomes.some((o) => o.outcome.abstained)
        ? outcomes.map((o) => `${kbLabel(o)}: ${o.outcome.abstained ?? 'nothing found'}`).join('; ')
        : null,
    weak: results.length > 0 || cmd.showWeak !== false ? weak : [],
    notice: null,
    ms: outcomes.reduce((n, o) => n + o.outcome.ms, 0),
  };
}

/** Each KB answers for itself, quietly and one after the other: the fused answer is rendered and logged once by the caller. */
function eachKb$(cmd: RecallCommand, sessions: readonly RecallSession[], runOpts: RunOptions): Observable<KbOutcome[]> {
  const quiet = { ...runOpts, noLog: true, caller: runOpts.caller ?? 'cli' };
  return concat(
    ...sessions.map((session, i) =>
      defer(() => {
        // A trace says which KB the events that follow come from (`recall trace`, `recall explain`).
        traceQuietly(runOpts, { stage: 'kb', kb: i + 1, of: sessions.length, root: session.scope.root, label: kbLabel({ session }), t: 0 });
        return session.outcome$({ ...cmd, kb: session.scope.root, kbs: undefined, format: 'json', verbose: false }, quiet);
      }).pipe(map((a): KbOutcome[] => (a.outcome ? [{ session, outcome: a.outcome }] : []))),
    ),
  ).pipe(reduce((all: KbOutcome[], one) => [...all, ...one], []));
}

/** One event to the run's trace sink, if any; a throwing sink never changes the recall. */
function traceQuietly(runOpts: RunOptions, ev: TraceEvent): void {
  try {
    runOpts.trace?.(ev);
  } catch {
    /* tracing never changes the result */
  }
}

/** The fused answer as the trace's last events: a `kb` 0 marker, then the result every KB's answers made together. */
function traceFused(runOpts: RunOptions, n: number, outcome: RecallOutcome): void {
  if (!runOpts.trace) return;
  traceQuietly(runOpts, { stage: 'kb', kb: 0, of: n, root: '', label: `the ${n} KBs fused`, t: 0 });
  traceQuietly(runOpts, {
    stage: 'result',
    ids: outcome.results.map((c) => c.note.key),
    scores: outcome.results.map((c) => c.score),
    cacheTier: null,
    degraded: outcome.degraded.map((d) => `${d.stage}:${d.reason}`),
    ms: outcome.ms,
    t: outcome.ms,
  });
}

/**
 * Several opened KBs as one session: each recall runs in every KB and the answers are fused,
 * rendered and logged once. Closing it closes them all. The first KB stands for the whole in
 * `scope` (its config and glyphs are used); `sources` lists them all.
 */
export function combineSessions(sessions: readonly RecallSession[], warn: (line: string) => void, sources?: KbSources): RecallSession {
  const first = sessions[0]!;
  const all: KbSources = sources ?? { read: sessions.map((s) => s.scope), skipped: [], zeroConfig: false };
  const config = first.config;
  const record = (cmd: RecallCommand, outcome: RecallOutcome, given: readonly ScoredCandidate[] | undefined, runOpts: RunOptions): void => {
    if (runOpts.noLog) return;
    const logged = { ...cmd, kbs: sessions.map((s) => s.scope.root) };
    bookkeeping(
      logged,
      config,
      outcome,
      first.glyphs(),
      Date.now(),
      warn,
      cmd.verbose,
      runOpts.caller ?? 'cli',
      first.scope.root,
      '',
      given,
      runOpts.deadlineMs,
    );
  };
  const outcome$ = (cmd: RecallCommand, runOpts: RunOptions = {}): Observable<RecallAnswer> =>
    eachKb$(cmd, sessions, runOpts).pipe(
      map((outcomes) => fuseOutcomes(cmd, outcomes, cmd.limit ?? config.defaultLimit)),
      tap((outcome) => traceFused(runOpts, sessions.length, outcome)),
      tap((outcome) => {
        if (cmd.verbose) for (const l of degradationLines(outcome.degraded)) warn(l);
        if (cmd.format === 'markdown' && outcome.abstained)
          warn(`recall: nothing relevant enough to return (${scrubAlong(outcome.abstained, cmd.query)})`);
      }),
      map((outcome): RecallAnswer => ({ outcome, scope: first.scope, refresh: first.refresh })),
    );
  return {
    config,
    scope: first.scope,
    refresh: first.refresh,
    liveNotes: sessions.reduce((n, s) => n + Math.max(0, s.liveNotes), 0),
    sources: all,
    glyphs: () => first.glyphs(),
    noteSets: () => sessions.flatMap((s) => s.noteSets()),
    outcome$,
    record: (cmd, outcome, given, runOpts = {}) => record(cmd, outcome, given, runOpts),
    async run(cmd, runOpts = {}) {
      const outcome = (await lastValueFrom(outcome$(cmd, runOpts))).outcome!;
      const glyphs = first.glyphs();
      const kb = sessions.map((s) => scopeJson(s.scope));
      const stdout = renderOutcome(cmd, outcome, outcome.results, { config, glyphs, kb });
      record(cmd, outcome, undefined, runOpts);
      return { stdout, outcome, scope: first.scope, refresh: first.refresh };
    },
    close: () => {
      for (const s of sessions) s.close();
    },
  };
}

export async function runMultiRecall(cmd: RecallCommand, io: RunIo, opts: { noLog?: boolean } = {}): Promise<RunResult> {
  const kbs = cmd.kbs ?? (cmd.kb ? [cmd.kb] : []);
  const sessions: RecallSession[] = [];
  try {
    for (const kb of kbs) sessions.push(await openSession({ kb, global: false, allBranches: false, verbose: cmd.verbose }, io));
  } catch (err) {
    for (const s of sessions) s.close();
    throw err;
  }
  const combined = combineSessions(sessions, io.warn);
  try {
    return await combined.run(cmd, { ...(opts.noLog ? { noLog: true } : {}), caller: 'cli' });
  } finally {
    combined.close();
  }
}
