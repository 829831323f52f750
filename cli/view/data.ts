/**
 * What `recall view` shows, read from the user's own recall log (`recall_log.jsonl` and its rotated
 * `.1`): the prompt hook's `kind: "hook"` lines and the `kind: "used"` verdicts. Read again on each
 * page load (the log is capped at a rotation size, so this stays a bounded read); a line that is
 * not JSON or not one of these kinds is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ViewNote {
  id: string;
  title: string;
  relevance: number;
  tokens: number;
}

export interface ViewVerdict {
  used: boolean;
  evidence: string | null;
  by: string | null;
}

export interface ViewEvent {
  ts: string;
  hook: string;
  session: string;
  kb: string | null;
  query: string;
  injected: ViewNote[];
  deduped: string[];
  overBudget: string[];
  abstained: string | null;
  tokens: number;
  stages: { stage: string; ms: number }[];
  recallMs: number;
  hookMs: number;
  degraded: string[];
  /** Verdicts on this event's notes, by id (absent = not judged yet). */
  verdicts: Map<string, ViewVerdict>;
}

export interface ViewSession {
  id: string;
  first: string;
  last: string;
  events: ViewEvent[];
}

export interface ViewData {
  sessions: ViewSession[];
  events: ViewEvent[];
  /** Lines skipped as unreadable. */
  skipped: number;
}

const rec = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function toNote(v: unknown): ViewNote | null {
  const o = rec(v);
  if (!o || typeof o['id'] !== 'string') return null;
  return { id: o['id'], title: text(o['title']), relevance: num(o['relevance']), tokens: num(o['tokens']) };
}

function toStages(v: unknown): { stage: string; ms: number }[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((s) => {
    const o = rec(s);
    return o && typeof o['stage'] === 'string' ? [{ stage: o['stage'], ms: num(o['ms']) }] : [];
  });
}

function toEvent(o: Record<string, unknown>): ViewEvent {
  const injected = Array.isArray(o['injected']) ? o['injected'].map(toNote).filter((n): n is ViewNote => n !== null) : [];
  return {
    ts: text(o['ts']),
    hook: text(o['hook']) || 'hook',
    session: text(o['session']) || '(no session id)',
    kb: typeof o['kb'] === 'string' ? o['kb'] : null,
    query: text(o['query']),
    injected,
    deduped: strings(o['deduped']),
    overBudget: strings(o['over_budget']),
    abstained: typeof o['abstained'] === 'string' ? o['abstained'] : null,
    tokens: num(o['tokens']),
    stages: toStages(o['stages']),
    recallMs: num(o['recall_ms']),
    hookMs: num(o['hook_ms']),
    degraded: strings(o['degraded']),
    verdicts: new Map(),
  };
}

function logLines(stateDir: string): string[] {
  const base = path.join(stateDir, 'recall_log.jsonl');
  return [`${base}.1`, base].flatMap((f) => {
    try {
      // A regular file only: a FIFO or device at the log's path would hang the page.
      return fs.statSync(f).isFile() ? fs.readFileSync(f, 'utf8').split('\n') : [];
    } catch {
      return [];
    }
  });
}

/** Everything the pages show, from the state dir's recall log. Sessions newest first; events in time order. */
export function loadViewData(stateDir: string): ViewData {
  const events: ViewEvent[] = [];
  const byKey = new Map<string, ViewEvent>();
  let skipped = 0;
  for (const line of logLines(stateDir)) {
    if (!line.includes('"kind"')) continue;
    let o: Record<string, unknown> | null;
    try {
      o = rec(JSON.parse(line));
    } catch {
      skipped += 1;
      continue;
    }
    if (o?.['kind'] === 'hook') {
      const ev = toEvent(o);
      events.push(ev);
      // Verdicts name their hook line by its event id (older lines by session and time).
      byKey.set(typeof o['event'] === 'string' ? o['event'] : `${ev.session}\u0000${ev.ts}`, ev);
    } else if (o?.['kind'] === 'used') {
      const ev = byKey.get(text(o['event']) || `${text(o['session'])}\u0000${text(o['injected_ts'])}`);
      if (ev && typeof o['id'] === 'string')
        ev.verdicts.set(o['id'], {
          used: o['used'] === true,
          evidence: typeof o['evidence'] === 'string' ? o['evidence'] : null,
          by: text(o['by']) || null,
        });
    }
  }
  const sessions = new Map<string, ViewSession>();
  for (const ev of events) {
    const s = sessions.get(ev.session) ?? { id: ev.session, first: ev.ts, last: ev.ts, events: [] };
    s.events.push(ev);
    s.last = ev.ts > s.last ? ev.ts : s.last;
    sessions.set(ev.session, s);
  }
  return { sessions: [...sessions.values()].sort((a, b) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0)), events, skipped };
}

/**
 * Whether a recorded degradation (`stage:reason`, a KB's name in brackets when several were read)
 * is an optional part that is not installed: the vector arm and the reranker need models that
 * `recall models pull` fetches, and without them they answer "unavailable" on every prompt. That
 * is the normal state of an install, said once on the Sessions page, not on each prompt. An index
 * still being built (`index:unavailable`), a timeout or an error is not.
 */
export function isOptionalMissing(degraded: string): boolean {
  return degraded.endsWith(':unavailable') && !degraded.startsWith('index');
}

/** The optional parts missing in these events (their stage names, KB labels dropped), and on how many prompts. */
export function optionalMissing(events: readonly ViewEvent[]): { parts: string[]; prompts: number } {
  const parts = new Set<string>();
  let prompts = 0;
  for (const ev of events) {
    const missing = ev.degraded.filter(isOptionalMissing);
    if (missing.length) prompts += 1;
    for (const d of missing) parts.add(d.replace(/:unavailable$/, '').replace(/ \[.*\]$/, ''));
  }
  return { parts: [...parts].sort(), prompts };
}

/** What the log says of one note: injections, verdicts and when it was last injected. */
export interface NoteUse {
  injected: number;
  used: number;
  notUsed: number;
  deduped: number;
  last: string | null;
}

/** Use of every note named in the log, by id. */
export function noteUses(events: readonly ViewEvent[]): Map<string, NoteUse> {
  const out = new Map<string, NoteUse>();
  const of = (id: string): NoteUse => {
    let u = out.get(id);
    if (!u) out.set(id, (u = { injected: 0, used: 0, notUsed: 0, deduped: 0, last: null }));
    return u;
  };
  for (const ev of events) {
    for (const n of ev.injected) {
      const u = of(n.id);
      u.injected += 1;
      if (!u.last || ev.ts > u.last) u.last = ev.ts;
      const v = ev.verdicts.get(n.id);
      if (v?.used) u.used += 1;
      else if (v) u.notUsed += 1;
    }
    for (const id of ev.deduped) of(id).deduped += 1;
  }
  return out;
}

/** Used share of judged injections: used / judged (null when none was judged). */
export function usedShare(events: readonly ViewEvent[], id?: string): { used: number; judged: number; share: number | null } {
  let used = 0;
  let judged = 0;
  for (const ev of events) {
    for (const [nid, v] of ev.verdicts) {
      if (id !== undefined && nid !== id) continue;
      judged += 1;
      if (v.used) used += 1;
    }
  }
  return { used, judged, share: judged ? used / judged : null };
}

export interface DayTotals {
  day: string;
  prompts: number;
  injections: number;
  notes: number;
  abstentions: number;
  tokens: number;
  p50: number;
  p95: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Totals per day (the ts's date), oldest first. */
export function dailyTotals(events: readonly ViewEvent[]): DayTotals[] {
  const days = new Map<string, ViewEvent[]>();
  for (const ev of events) {
    const d = ev.ts.slice(0, 10) || 'unknown';
    days.set(d, [...(days.get(d) ?? []), ev]);
  }
  return [...days.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([day, evs]) => {
      const lat = evs.map((e) => e.hookMs).sort((a, b) => a - b);
      return {
        day,
        prompts: evs.length,
        injections: evs.filter((e) => e.injected.length > 0).length,
        notes: evs.reduce((n, e) => n + e.injected.length, 0),
        abstentions: evs.filter((e) => e.abstained !== null).length,
        tokens: evs.reduce((n, e) => n + e.tokens, 0),
        p50: percentile(lat, 50),
        p95: percentile(lat, 95),
      };
    });
}
