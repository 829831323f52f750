/**
 * What a hook gave the agent, and whether it was used, as lines of the recall log
 * (`recall_log.jsonl`), next to the recall lines `replay` re-runs. Both kinds carry a `kind` field,
 * which recall lines never have, so replay tells them apart:
 * - `kind: "hook"`: one line per prompt hook call (and per tool call that matched a learning, with
 *   the call as its query): the prompt or call (scrubbed), the session, each injected
 *   note (id, title, relevance, size in tokens), the ids left out because the session already had
 *   them, the abstention reason, time per stage and the hook's own latency;
 * - `kind: "used"`: one line per injected note once judged: used or not, and the evidence (a phrase
 *   of the note, scrubbed). No transcript text is ever written.
 * The notes waiting for their verdict are kept per session in `helpfulness/<session>.json` (with the
 * clues the judgement needs), read and cleared under a lock by the session's next hook.
 * Writers never throw: a failure comes back as a message for the hook's log.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { appendLine, readJson, writeFileAtomic } from '../../io/atomic-write.js';
import { logTimestamp } from '../../core/dates.js';
import { sessionKey } from '../../core/session-key.js';
import { errorMessage } from '../../core/errors.js';
import type { UseClues, UseVerdict } from '../../core/helpfulness/index.js';
import { withFileLock, LOG_MAX_BYTES } from '../logs/index.js';
import { scrub, scrubAlong, scrubEvidence } from '../scrub/index.js';

export interface InjectedNote {
  id: string;
  title: string;
  relevance: number;
  score: number;
  /** Estimated tokens of the note's entry in the injected block. */
  tokens: number;
  /** Given as a one-line pointer (the hook was unsure it applies), not whole. */
  pointer?: true;
}

export interface HookEvent {
  hook: string;
  harness: string;
  session: string | null;
  /** The KB the recall read (its root), or null. */
  kb: string | null;
  query: string;
  injected: InjectedNote[];
  /** Ids above the floor left out because this session was already given them. */
  deduped: string[];
  /** Ids above the floor left out because they did not fit the hook's size or count limit. */
  over_budget: string[];
  /** Why nothing cleared the relevance floor, in words (null when something did). */
  abstained: string | null;
  /** Estimated tokens of the whole injected block. */
  tokens: number;
  /** Milliseconds each stage of the recall took, in order. */
  stages: { stage: string; ms: number }[];
  recall_ms: number;
  /** From the hook process's start to its answer. */
  hook_ms: number;
  degraded: string[];
  /** The tool-call hook: every learning the call matched, with its evidence (`command:…`, `token:…`, `word:…`). */
  matched?: { id: string; score: number; why: string[] }[];
}

export interface UseEvent {
  session: string;
  id: string;
  /** The hook line this verdict is about (its `event` id) and when it was written. */
  event: string;
  injected_ts: string;
  used: boolean;
  evidence: string | null;
  by: UseVerdict['by'];
}

function append(stateDir: string, line: Record<string, unknown>, what: string): string | null {
  try {
    appendLine(path.join(stateDir, 'recall_log.jsonl'), line, { maxBytes: LOG_MAX_BYTES });
    return null;
  } catch (err) {
    return `${what} not written to the recall log: ${errorMessage(err)}`;
  }
}

/** Longest prompt kept in a hook line (the recall line beside it keeps the whole query, for replay). */
const HOOK_QUERY_CHARS = 2000;

/**
 * Appends the hook line; returns its ts and its `event` id (what its verdicts refer to), or an error
 * message. The prompt is scrubbed over twice the kept length before it is cut, so a secret that
 * straddles the cut is still recognised whole.
 */
export function logHookEvent(stateDir: string, ev: HookEvent, nowMs: number): { ts: string; event: string } | { error: string } {
  const ts = logTimestamp(nowMs);
  const event = randomBytes(6).toString('hex');
  const query = scrub(ev.query.slice(0, 2 * HOOK_QUERY_CHARS)).slice(0, HOOK_QUERY_CHARS);
  // Text that came from people is scrubbed: a note title can hold a token, and the abstention
  // reason quotes the prompt's own words (a password among them), so it is cleaned by what the
  // prompt held. Note ids are recall's own names for notes and are kept as they are: a redacted id
  // (or one with a piece of the prompt's secret cut out of it) loses the note for `recall view`,
  // `replay` and the verdicts. The session id is hashed (core/session-key.ts).
  // The KB folder is kept too: a temp folder's random name reads as a token to the scrubber.
  // Match evidence keeps its label (`token:`, a word the scrubber would take for a credential's name)
  // and has what matched scrubbed.
  const { query: _raw, session, injected, deduped, over_budget, kb, matched, ...rest } = ev;
  const clean = scrubAlong({ ...rest, titles: injected.map((n) => n.title) }, ev.query);
  const { titles, ...cleanRest } = clean;
  const line = {
    ts,
    v: 2,
    kind: 'hook',
    event,
    ...cleanRest,
    kb,
    session: session === null ? null : sessionKey(session),
    injected: injected.map((n, i) => ({ ...n, title: titles[i] ?? '' })),
    deduped,
    over_budget,
    ...(matched ? { matched: matched.map((m) => ({ ...m, why: m.why.map((w) => scrubEvidence(w, ev.query)) })) } : {}),
    query,
  };
  const err = append(stateDir, line, 'hook event');
  return err ? { error: err } : { ts, event };
}

/** Appends a verdict line: the note id as it is, the session hashed, the evidence (a phrase of the note) scrubbed. */
export function logUseEvent(stateDir: string, ev: UseEvent, nowMs: number): string | null {
  const evidence = ev.evidence === null ? null : scrub(ev.evidence).slice(0, 200);
  return append(
    stateDir,
    { ts: logTimestamp(nowMs), v: 2, kind: 'used', ...ev, session: sessionKey(ev.session), evidence },
    'helpfulness verdict',
  );
}

/** An injection waiting for its verdict. */
export interface PendingInjection {
  /** ts and event id of the hook line. */
  ts: string;
  event: string;
  transcript: string;
  /** Size of the transcript when the notes were injected: the assistant's reply comes after it. */
  offset: number;
  clues: UseClues[];
}

/** Injections kept waiting per session (an unreadable transcript never lets them pile up). */
const MAX_PENDING = 3;

export function pendingFile(stateDir: string, sessionId: string): string {
  return path.join(stateDir, 'helpfulness', `${sessionKey(sessionId)}.json`);
}

function readPending(file: string): PendingInjection[] {
  const raw = readJson<{ pending?: unknown }>(file, {});
  const list = raw && Array.isArray(raw.pending) ? (raw.pending as unknown[]) : [];
  return list.filter(
    (p): p is PendingInjection =>
      !!p &&
      typeof p === 'object' &&
      typeof (p as PendingInjection).transcript === 'string' &&
      typeof (p as PendingInjection).offset === 'number' &&
      Array.isArray((p as PendingInjection).clues),
  );
}

/** Longest wait for a session's pending list lock (ms): its updates take microseconds. */
const PENDING_WAIT_MS = 500;

/**
 * Adds an injection to the session's waiting list (the oldest beyond MAX_PENDING are dropped). The
 * lock's wait blocks the thread: a hook passes what is left of its deadline as `waitMs`.
 */
export function addPending(stateDir: string, sessionId: string, p: PendingInjection, waitMs = PENDING_WAIT_MS): string | null {
  const file = pendingFile(stateDir, sessionId);
  try {
    withFileLock(
      file,
      () => writeFileAtomic(file, JSON.stringify({ pending: [...readPending(file), p].slice(-MAX_PENDING) })),
      Math.min(waitMs, PENDING_WAIT_MS),
    );
    return null;
  } catch (err) {
    return `helpfulness: pending injection not recorded: ${errorMessage(err)}`;
  }
}

/** The session's waiting injections, removed from the list (each is judged once). */
export function takePending(stateDir: string, sessionId: string): PendingInjection[] {
  const file = pendingFile(stateDir, sessionId);
  try {
    return withFileLock(
      file,
      () => {
        const list = readPending(file);
        if (list.length) writeFileAtomic(file, JSON.stringify({ pending: [] }));
        return list;
      },
      500,
    );
  } catch {
    return [];
  }
}
