/**
 * Recall bookkeeping files under the state dir (the reference's formats, kept compatible):
 * - recall_log.jsonl: one line per completed recall;
 * - knowledge-gaps.jsonl: a line when a real query found nothing;
 * - recent-searches.json + a metrics line: the follow-up diagnostic (a second, disjoint search in
 *   the same session within the window suggests the first one missed).
 * Writers never throw: a failed write is returned as a message for the degradation record.
 *
 * Queries are prompts, and prompts hold secrets: every query (and every string of a logged request)
 * is scrubbed (sinks/scrub/scrub.ts) before it is written anywhere here, and a session id is written
 * as its hash (core/session-key.ts). Each log is rotated to `<name>.1` at `maxBytes`.
 */
import path from 'node:path';
import { contentTerms } from '../../core/terms.js';
import { logTimestamp } from '../../core/dates.js';
import { appendLine, readJson, writeFileAtomic } from '../../io/atomic-write.js';
import { LOCK_WAIT_MS, withFileLock } from './file-lock.js';
import { scrub, scrubAlong, scrubStrings } from '../scrub/index.js';
import { errorMessage } from '../../core/errors.js';
import { sessionKey } from '../../core/session-key.js';

export interface RecallLogRecord {
  query: string;
  mode: string;
  count: number;
  cached: boolean;
  cache_tier: string | null;
  ids: string[];
  ms: number;
  degraded: string[];
  economics?: { read_tokens: number; discovery_tokens: number; saved_tokens: number; savings_pct: number } | null;
  /** Replay data (schema v2): who asked, the request, what came back, the settings in force. */
  v?: number;
  caller?: string;
  kb?: string;
  /** The project the affinity boost used ('' = none): replay uses it, wherever it runs. */
  project?: string;
  request?: Record<string, unknown>;
  results?: { id: string; key: string; score: number }[];
  settings?: Record<string, unknown>;
}

/** Default size at which a log is rotated. */
export const LOG_MAX_BYTES = 20 * 1048576;

export function logRecall(stateDir: string, rec: RecallLogRecord, nowMs: number, maxBytes = LOG_MAX_BYTES): string | null {
  const { economics, ...rest } = rec;
  // Degradation messages can quote the prompt: cleaned by what it held. Note ids and results come
  // from the KB and are kept as they are, for replay.
  const line: Record<string, unknown> = {
    ts: logTimestamp(nowMs),
    ...rest,
    degraded: scrubAlong(rec.degraded, rec.query),
    query: scrub(rec.query),
  };
  // Every string of the request (query, tags, field, domain hint) came from the user: all scrubbed,
  // but for the KB folders it read (`kb`, `kbs`), which replay must find again. A temp folder's random
  // name ("/tmp/tmp.vK9mXe3LqR/kb") reads as a token to the scrubber, and a folder is no secret.
  if (rec.request) {
    const { kb, kbs, ...rest } = rec.request;
    line['request'] = {
      ...(scrubStrings(rest) as Record<string, unknown>),
      ...(kb !== undefined ? { kb } : {}),
      ...(kbs !== undefined ? { kbs } : {}),
    };
  }
  if (economics) {
    line['injected_tokens'] = economics.read_tokens;
    line['discovery_tokens'] = economics.discovery_tokens;
    line['saved_tokens'] = economics.saved_tokens;
    line['savings_pct'] = economics.savings_pct;
  }
  try {
    appendLine(path.join(stateDir, 'recall_log.jsonl'), line, { maxBytes });
    return null;
  } catch (err) {
    return `recall log not written: ${errorMessage(err)}`;
  }
}

/** Gap key: the query's content terms, sorted, space-joined ('' = not worth logging). */
export function gapKey(query: string): string {
  return [...new Set(contentTerms(query))].sort().join(' ');
}

export function logGap(
  stateDir: string,
  rawQuery: string,
  sessionId: string | null,
  nowMs: number,
  maxBytes = LOG_MAX_BYTES,
): string | null {
  const query = scrub(rawQuery);
  const normalized = gapKey(query);
  if (!normalized) return null;
  const day = logTimestamp(nowMs).slice(0, 10);
  try {
    appendLine(
      path.join(stateDir, 'knowledge-gaps.jsonl'),
      {
        ts: logTimestamp(nowMs),
        query: query.slice(0, 200),
        normalized,
        session_id: sessionId === null ? `unknown-${day}` : sessionKey(sessionId),
      },
      { maxBytes },
    );
    return null;
  } catch (err) {
    return `gap log not written: ${errorMessage(err)}`;
  }
}

interface RecentEntry {
  query: string;
  result_ids: string[];
  at: number;
}

export interface FollowupOptions {
  stateDir: string;
  metricsPath: string;
  sessionId: string;
  windowSec: number;
  maxBytes?: number;
  /**
   * Longest wait for the file's lock (ms, at most the lock's own 3 s). The wait blocks the thread, a
   * hook's deadline timer with it: a hook passes what is left of its plan. Past it, no record.
   */
  waitMs?: number;
}

/**
 * Records this search for the session and appends a `recall_search` metrics line saying whether it
 * looks like a follow-up (prior search in the window, different query, disjoint non-empty results).
 * Returns the verdict, or an error message.
 */
export function recordFollowup(
  opts: FollowupOptions,
  rawQuery: string,
  ids: string[],
  nowMs: number,
): { followup: boolean } | { error: string } {
  const file = path.join(opts.stateDir, 'recent-searches.json');
  const now = nowMs / 1000;
  const query = scrub(rawQuery);
  try {
    // Read-modify-write of a file every hook of every session updates: under its lock.
    const followup = withFileLock(
      file,
      () => updateRecent(file, opts, query, ids, now),
      Math.min(opts.waitMs ?? LOCK_WAIT_MS, LOCK_WAIT_MS),
    );
    appendLine(
      opts.metricsPath,
      {
        ts: new Date(nowMs).toISOString(),
        op: 'recall_search',
        session_id: sessionKey(opts.sessionId),
        followup,
        window_seconds: opts.windowSec,
        result_count: ids.length,
        query: query.slice(0, 200),
      },
      { maxBytes: opts.maxBytes ?? LOG_MAX_BYTES },
    );
    return { followup };
  } catch (err) {
    return { error: `follow-up diagnostic not written: ${errorMessage(err)}` };
  }
}

function updateRecent(file: string, opts: FollowupOptions, query: string, ids: string[], now: number): boolean {
  {
    const raw = readJson<Record<string, RecentEntry>>(file, {});
    const recent: Record<string, RecentEntry> = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
    const session = sessionKey(opts.sessionId);
    const prior = recent[session];
    const delta = prior ? now - prior.at : -1;
    const followup =
      !!prior &&
      delta >= 0 &&
      delta <= opts.windowSec &&
      prior.query !== query &&
      Array.isArray(prior.result_ids) &&
      prior.result_ids.length > 0 &&
      prior.result_ids.every((id) => !ids.includes(id));
    const horizon = Math.max(opts.windowSec, 3600);
    const kept = Object.fromEntries(Object.entries(recent).filter(([, e]) => e && typeof e.at === 'number' && now - e.at <= horizon));
    kept[session] = { query, result_ids: ids, at: now };
    writeFileAtomic(file, JSON.stringify(kept));
    return followup;
  }
}
