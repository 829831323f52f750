/**
 * Reading the recall log for replay: one record per line, streamed, each validated into the query,
 * the logged results and the request flags it was made with. A line that cannot be used is reported
 * (line number and reason), never fatal. Lines in the reflect-kb reference's schema (no `v`, no
 * request) are read too: their query and mode replay with default flags.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import type { RecallCommand } from '../../pipeline/run.js';

export interface LoggedRecall {
  line: number;
  ts: string;
  query: string;
  caller: string;
  request: Partial<RecallCommand>;
  /** Result keys in rank order (v2: keys; v1: display ids). */
  ids: string[];
  ms: number | null;
  tokens: number | null;
  /** The project the logged recall's affinity boost used (null: not logged, use this process's). */
  project: string | null;
}

/** A log line that could not be replayed: reported, and counted as a change. */
export interface BadRecord {
  line: number;
  error: string;
}

/** Types of the request fields a logged record may carry; anything else in a record is ignored. */
const REQUEST_FIELDS: Record<string, 'string' | 'number' | 'boolean' | 'string[]' | 'string|null'> = {
  limit: 'number',
  mode: 'string',
  confidence: 'string',
  format: 'string',
  field: 'string|null',
  tags: 'string[]',
  domainHint: 'string',
  minOverlap: 'number',
  maxTokens: 'number',
  maxChars: 'number',
  cache: 'boolean',
  cacheTtl: 'number',
  includeQuarantined: 'boolean',
  mmr: 'boolean',
  mmrLambda: 'number',
  global: 'boolean',
  allBranches: 'boolean',
  kb: 'string|null',
  kbs: 'string[]',
  floor: 'number',
  showWeak: 'boolean',
};

/** The logged request, field by field: a field of the wrong type (`tags: null`) is dropped, so the default applies. */
function cleanRequest(raw: unknown): Partial<RecallCommand> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const t = REQUEST_FIELDS[k];
    const ok =
      t === 'string[]'
        ? Array.isArray(v) && v.every((x) => typeof x === 'string')
        : t === 'string|null'
          ? v === null || typeof v === 'string'
          : t === 'number'
            ? typeof v === 'number' && Number.isFinite(v)
            : t !== undefined && typeof v === t;
    if (ok) out[k] = v;
  }
  if (out['mode'] !== undefined && !['naive', 'local', 'global'].includes(out['mode'] as string)) delete out['mode'];
  if (out['confidence'] !== undefined && !['HIGH', 'MEDIUM', 'LOW', 'ANY'].includes(out['confidence'] as string)) delete out['confidence'];
  return out;
}

/** One log line as a record to replay, or why it cannot be replayed. */
export function parseLogLine(text: string, line: number): LoggedRecall | BadRecord {
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('not a JSON object');
    if (typeof o['query'] !== 'string' || !o['query'].trim()) throw new Error('no query');
    const results = Array.isArray(o['results']) ? (o['results'] as unknown[]) : null;
    const idOf = (r: unknown): string =>
      r && typeof r === 'object' ? String((r as { key?: unknown; id?: unknown }).key ?? (r as { id?: unknown }).id) : String(r);
    return {
      line,
      ts: typeof o['ts'] === 'string' ? o['ts'] : '',
      query: o['query'],
      caller: typeof o['caller'] === 'string' ? o['caller'] : 'unknown',
      request:
        o['request'] && typeof o['request'] === 'object'
          ? cleanRequest(o['request'])
          : { mode: (['naive', 'local', 'global'].includes(String(o['mode'])) ? o['mode'] : 'naive') as RecallCommand['mode'] },
      ids: results ? results.map(idOf) : Array.isArray(o['ids']) ? (o['ids'] as unknown[]).map(String) : [],
      ms: typeof o['ms'] === 'number' ? o['ms'] : null,
      tokens: typeof o['injected_tokens'] === 'number' ? o['injected_tokens'] : null,
      project: typeof o['project'] === 'string' ? o['project'] : null,
    };
  } catch (err) {
    return { line, error: `unreadable record: ${(err as Error).message}` };
  }
}

/** Longest log line read (a longer one is reported as bad, never loaded whole). */
const MAX_LINE_CHARS = 1024 * 1024;

/**
 * A line that is an event, not a recall (it has a `kind`: a prompt hook's `hook` record or a `used`
 * verdict on an injected note): its object, else null. Events are not replayed.
 */
export function logEvent(text: string): Record<string, unknown> | null {
  if (!text.includes('"kind"')) return null;
  try {
    const o = JSON.parse(text) as unknown;
    return o && typeof o === 'object' && !Array.isArray(o) && typeof (o as { kind?: unknown }).kind === 'string'
      ? (o as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The log's lines, streamed (a 500 MB log is never read into one string), as records or bad
 * records; event lines go to `onEvent` instead.
 */
export async function* readRecallLog(
  file: string,
  onEvent?: (event: Record<string, unknown>, line: number) => void,
): AsyncGenerator<LoggedRecall | BadRecord> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const text of rl) {
    n += 1;
    if (!text.trim()) continue;
    if (text.length > MAX_LINE_CHARS) {
      yield { line: n, error: `line longer than ${MAX_LINE_CHARS} characters` };
      continue;
    }
    const event = logEvent(text);
    if (event) onEvent?.(event, n);
    else yield parseLogLine(text, n);
  }
}

export interface LoggedAction {
  line: number;
  ts: string;
  kb: string | null;
  /** The call as logged: `Bash: <command>` or `<Tool>: <paths>`. */
  call: string;
  /** The ids it matched then (given or already given in the session). */
  matched: string[];
  ms: number | null;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The tool-call hook line of an event, or null for any other event. */
export function loggedAction(e: Record<string, unknown>, line: number): LoggedAction | null {
  if (e['kind'] !== 'hook' || e['hook'] !== 'pre-tool-use' || typeof e['query'] !== 'string') return null;
  const matched = Array.isArray(e['matched'])
    ? e['matched'].flatMap((m) =>
        m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? [(m as { id: string }).id] : [],
      )
    : [
        ...(Array.isArray(e['injected'])
          ? e['injected'].flatMap((n) => (n && typeof n === 'object' ? strings([(n as { id?: unknown }).id]) : []))
          : []),
        ...strings(e['deduped']),
      ];
  return {
    line,
    ts: typeof e['ts'] === 'string' ? e['ts'] : '',
    kb: typeof e['kb'] === 'string' ? e['kb'] : null,
    call: e['query'],
    matched,
    ms: typeof e['recall_ms'] === 'number' ? e['recall_ms'] : null,
  };
}
