/**
 * Staged recall (upstream-notes §8): a token-cheap 3-layer workflow for deep digs.
 *
 *   1. `stageIndex`    — compact ID-only rows of the hits (`{id, title, score, project, date}`);
 *   2. `stageTimeline` — chronological neighbours of one interesting hit;
 *   3. `stageHydrate`  — full bodies and entity sidecars, only for the ids chosen in 1-2.
 *
 * Library functions: they return plain JSON-able objects, never write to stdout and never exit.
 * The KB is chosen with the same scope rules as recall (`--kb`, GLOBAL_LEARNINGS_PATH, global,
 * shards). Only live notes (under documents/) take part; archived and forgotten notes are never
 * listed or hydrated. Every index opened here is closed before the function returns.
 *
 * Differences from the reference, on purpose: the notes come from the recall index (the same KB as
 * `recall`, including nested documents/ folders) rather than a flat `documents/*.md` scan of a
 * separately chosen root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.js';
import { resolveScope } from '../pipeline/scope.js';
import { UsageError, errorMessage } from '../core/errors.js';
import { DEFAULT_COMMAND, checkKbDir, openKbIndex, openSession, type RecallCommand } from '../pipeline/run.js';
import type { ModelClient } from '../core/ports.js';
import type { Scope } from '../pipeline/scope.js';
import { refreshWithin } from '../sources/index-refresh.js';
import { closeIndex, type IndexHandle } from '../sources/index-store.js';
import { liveNotes, sidecarText } from '../sources/index-queries.js';
import { str, type Note } from '../core/note.js';
import { parseLooseDate } from '../core/dates.js';
import { contentTerms, termCoverage } from '../core/terms.js';

// ---------------------------------------------------------------------------------------------
// Types

export interface StagesIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Diagnostics sink (stderr in the CLI). */
  warn: (l: string) => void;
  /** Model client handed to the recall pipeline (default: whatever the installation provides). */
  models?: ModelClient;
  /** Ranked search behind step 1 (default: the recall pipeline); tests inject a stub. */
  search?: StageSearch;
}

export interface StagesScope {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

/** One ranked hit of the search behind step 1. */
export interface StageHit {
  note: Note;
  score: number;
  /** Absolute relevance (0..1) when the recall pipeline found the hit; absent for the lexical scan. */
  relevance?: number;
}

/** The ranked search of step 1: hits best first, at most `limit`. May throw (step 1 then scans lexically). */
export type StageSearch = (query: string, limit: number, scope: StagesScope, io: StagesIo) => Promise<StageHit[]>;

export interface IndexRow {
  id: string;
  title: string;
  score: number;
  /** How likely the note is about the query (0..1; under the floor = a weak match); absent for the lexical scan. */
  relevance?: number;
  project: string;
  date: string;
}

export interface IndexStep {
  step: 1;
  query: string;
  count: number;
  results: IndexRow[];
}

export interface TimelineRow {
  id: string;
  title: string;
  project: string;
  date: string;
  anchor: boolean;
}

export type TimelineStep =
  { step: 2; anchor: string; depth_before: number; depth_after: number; results: TimelineRow[] } | { step: 2; error: string; results: [] };

export type HydrateRow =
  | {
      id: string;
      found: true;
      title: string;
      project: string;
      date: string;
      frontmatter: Record<string, unknown>;
      body: string;
      entities: Record<string, unknown> | null;
    }
  | { id: string; found: false };

export interface HydrateStep {
  step: 3;
  /** Number of result rows (one per requested id, found or not). */
  count: number;
  results: HydrateRow[];
}

// ---------------------------------------------------------------------------------------------
// Tunables

/** Default rows of step 1 (the reference's `--limit 20`): enough to triage, ~1-2k tokens in all. Range 1..1000. */
export const INDEX_DEFAULT_LIMIT = 20;
/** Rows step 2 asks step 1 for when it picks the anchor from a query (reference value). */
const TIMELINE_QUERY_LIMIT = 5;
/** Notes shown on each side of the anchor by default (reference value). Range 0..∞ (negatives clamp to 0). */
export const TIMELINE_DEFAULT_DEPTH = 3;
/** Token ceiling of one index row: the "~50-100 tokens per row" promise of the workflow. */
export const INDEX_ROW_MAX_TOKENS = 100;
/** Characters shaved off an over-long title per step (reference value). */
const TITLE_SHAVE_CHARS = 20;
/** Field caps of the ID-only rows (reference values): long enough to recognise, short enough to stay cheap. */
const ID_MAX = 120;
const TITLE_MAX = 120;
const PROJECT_MAX = 40;
const DATE_MAX = 25;
/** Frontmatter fields naming a row's project, first non-empty wins (reference order, plus `project_id`). */
const PROJECT_FIELDS = ['project', 'project_id', 'category', 'agent'] as const;
/** What parseNote calls a note without a usable title or name (the stem is shown instead). */
const NO_TITLE = '(no title)';
/** Frontmatter fields giving a row's date, first parsable wins (then the body's archived header). */
const DATE_FIELDS = ['created', 'date', 'updated'] as const;

// ---------------------------------------------------------------------------------------------
// Pure helpers

/** First `n` code points of `s` (Python slicing semantics, never splits a surrogate pair). */
function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  return Array.from(s).slice(0, n).join('');
}

/** Python `repr()` of a string, as the reference writes it into "anchor not found (...)". */
function pyRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').split(q).join(`\\${q}`);
  return `${q}${body}${q}`;
}

/** File name of a note without its `.md` extension. */
export function noteStem(note: Pick<Note, 'path'>): string {
  return path.posix.basename(note.path).replace(/\.md$/i, '');
}

/** The id a stage shows for a note: the note's one id (frontmatter `id`, else `name`, else its path id), as recall shows it. */
export function stageId(note: Note): string {
  return note.displayId;
}

/** Title: frontmatter `title` (quotes stripped), else `name`, else the file stem. */
function stageTitle(note: Note): string {
  return note.title !== NO_TITLE ? note.title : str(note.frontmatter['name']) || noteStem(note);
}

/** Project: `project` | `project_id` | `category` | `agent` as written, else ''. */
function stageProject(note: Note): string {
  for (const f of PROJECT_FIELDS) {
    const v = str(note.frontmatter[f]);
    if (v) return v;
  }
  return '';
}

/** Date as written and its instant: first parsable of created, date, updated, then the archived header. */
function stageDate(note: Note): { text: string; ms: number } | null {
  for (const f of DATE_FIELDS) {
    const v = note.frontmatter[f];
    const d = parseLooseDate(v);
    if (d) return { text: str(v), ms: d.getTime() };
  }
  if (note.archivedAt) {
    const d = parseLooseDate(note.archivedAt);
    if (d) return { text: note.archivedAt, ms: d.getTime() };
  }
  return null;
}

/** Token estimate of a row as the reference makes it: JSON length / 4, floored. */
export function rowTokens(row: object): number {
  return Math.floor(JSON.stringify(row).length / 4);
}

/**
 * An index row for a note: fields capped, score to 4 decimals, the title shaved 20 characters at a
 * time until the row estimates ≤ INDEX_ROW_MAX_TOKENS (stops at an empty title).
 */
export function indexRow(note: Note, score: number, relevance?: number): IndexRow {
  const row: IndexRow = {
    id: cut(stageId(note), ID_MAX),
    title: cut(stageTitle(note), TITLE_MAX),
    score: Math.round(score * 1e4) / 1e4,
    ...(relevance !== undefined ? { relevance: Math.round(relevance * 100) / 100 } : {}),
    project: cut(stageProject(note), PROJECT_MAX),
    date: cut(stageDate(note)?.text ?? '', DATE_MAX),
  };
  while (rowTokens(row) > INDEX_ROW_MAX_TOKENS && row.title.length > 0) {
    const cps = Array.from(row.title);
    row.title = cps.slice(0, Math.max(0, cps.length - TITLE_SHAVE_CHARS)).join('');
  }
  return row;
}

/**
 * Lexical scan (the fallback of step 1): score = fraction of the query's content terms found in the
 * note body (word-prefix match). Keeps score > 0, best first, ties by id; at most `limit` (default
 * all). A query without content terms matches nothing. Empty `notes` → [].
 */
export function lexicalIndex(notes: readonly Note[], query: string, limit = Infinity): StageHit[] {
  const terms = contentTerms(query);
  if (terms.length === 0) return [];
  const hits: StageHit[] = [];
  for (const note of notes) {
    const score = termCoverage(terms, note.body);
    if (score > 0) hits.push({ note, score });
  }
  hits.sort((a, b) => b.score - a.score || compareStr(stageId(a.note), stageId(b.note)));
  return hits.slice(0, limit);
}

function compareStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Non-negative integer depth; absent or not a number → the default; negatives clamp to 0. */
function clampDepth(v: number | undefined): number {
  if (v === undefined || !Number.isFinite(v)) return TIMELINE_DEFAULT_DEPTH;
  return Math.max(0, Math.floor(v));
}

/** The slice [anchor - before, anchor + after] of `items`, clamped at both ends. */
export function timelineWindow<T>(items: readonly T[], anchorAt: number, before: number, after: number): T[] {
  return items.slice(Math.max(0, anchorAt - before), Math.min(items.length, anchorAt + after + 1));
}

/** Notes in chronological order: by date (undated: file mtime, else last), then id, then index order. */
function chronological(notes: readonly Note[], root: string): Note[] {
  const keyed = notes.map((note, i) => {
    let ms = stageDate(note)?.ms;
    if (ms === undefined) {
      try {
        ms = fs.statSync(path.join(root, note.path)).mtimeMs;
      } catch {
        ms = Number.MAX_SAFE_INTEGER;
      }
    }
    return { note, ms, id: stageId(note), i };
  });
  keyed.sort((a, b) => a.ms - b.ms || compareStr(a.id, b.id) || a.i - b.i);
  return keyed.map((k) => k.note);
}

/** The first note whose stage id, key or file stem equals `id`. */
function findNote(notes: readonly Note[], id: string): Note | undefined {
  return notes.find((n) => stageId(n) === id) ?? notes.find((n) => n.key === id || noteStem(n) === id);
}

// ---------------------------------------------------------------------------------------------
// Index access

/** Resolve the KB like recall does, open and refresh its index, run `fn`, close the index. */
function withLiveIndex<T>(opts: StagesScope, io: StagesIo, fn: (h: IndexHandle, scope: Scope) => T): T {
  const config = loadConfig(io.env);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const scope = resolveScope(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd });
  const h = openKbIndex(config, scope.root, io.env);
  try {
    if (h.fallbackReason) io.warn(`recall: ${h.fallbackReason}`);
    for (const n of refreshWithin(h, { problems: false, backgroundEnv: io.env }).notices) io.warn(`recall: ${n}`);
    return fn(h, scope);
  } finally {
    closeIndex(h);
  }
}

/** Parsed entity sidecar of a note (first by path when several), or null. */
function sidecarOf(h: IndexHandle, notePath: string): Record<string, unknown> | null {
  const text = sidecarText(h, notePath);
  if (text === null) return null;
  try {
    const data = JSON.parse(text) as unknown;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Step 1: index

/** The default search of step 1: one in-process recall (JSON format, no cache, no gap log, no follow-up). */
const pipelineSearch: StageSearch = async (query, limit, scope, io) => {
  const session = await openSession(
    { kb: scope.kb, global: scope.global, allBranches: scope.allBranches, verbose: false },
    {
      env: io.env,
      cwd: io.cwd,
      warn: io.warn,
      ...(io.models ? { models: io.models } : {}),
    },
  );
  try {
    const cmd: RecallCommand = {
      ...DEFAULT_COMMAND,
      query,
      limit,
      format: 'json',
      cache: false,
      global: scope.global,
      allBranches: scope.allBranches,
      kb: scope.kb,
      gapLog: false,
      followup: false,
      // Triage wants the weak matches too: they come after the results, marked by their relevance.
      showWeak: true,
    };
    const r = await session.run(cmd);
    return [...(r.outcome?.results ?? []), ...(r.outcome?.weak ?? [])].map((c) => ({
      note: c.note,
      score: c.score,
      relevance: c.relevance,
    }));
  } finally {
    session.close();
  }
};

/**
 * Step 1: compact ID-only rows of the recall hits, best first.
 *
 * Rows come from the recall pipeline (`io.search`, default: an in-process recall) with its ranked
 * score. When that yields nothing or fails (a failure is reported on `io.warn`), the KB's live notes
 * are scanned lexically instead (see `lexicalIndex`). No hits at all → `count: 0, results: []`.
 * Rows never carry bodies and each estimates ≤ 100 tokens.
 *
 * @param opts.limit rows at most; default 20, an integer ≥ 1.
 * @throws UsageError for an empty query, a bad limit or a `--kb` that is not a directory.
 */
export async function stageIndex(query: string, opts: StagesScope & { limit?: number }, io: StagesIo): Promise<IndexStep> {
  const q = query.trim();
  if (!q) throw new UsageError('empty query');
  const limit = opts.limit ?? INDEX_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be an integer of at least 1');
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const search = io.search ?? pipelineSearch;
  let hits: StageHit[] = [];
  try {
    hits = (await search(q, limit, opts, io)).slice(0, limit);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    io.warn(`recall: stages index: recall failed (${errorMessage(err)}); using a lexical scan`);
  }
  if (hits.length === 0) hits = withLiveIndex(opts, io, (h) => lexicalIndex(liveNotes(h, true), q, limit));
  const results = hits.map((hit) => indexRow(hit.note, hit.score, hit.relevance));
  return { step: 1, query: q, count: results.length, results };
}

// ---------------------------------------------------------------------------------------------
// Step 2: timeline

/**
 * Step 2: the live notes around an anchor, in chronological order (date of `created`, `date`,
 * `updated` or the archived header; undated notes by file mtime; ties by id).
 *
 * The anchor is `opts.anchor` (an id or a file stem), else picked from `opts.query`: the first of
 * step 1's top 5 rows that is a note of this KB, else the best lexical match.
 * The window is `depthBefore` notes, the anchor, `depthAfter` notes (defaults 3; negatives clamp to
 * 0; the window clamps at both ends of the KB).
 *
 * Errors are data: `{ step: 2, error, results: [] }` with "no learnings KB found" (no documents/
 * folder) or "anchor not found ('<id or query>')".
 *
 * @throws UsageError when neither an anchor nor a query is given, or for a bad `--kb`.
 */
export async function stageTimeline(
  opts: StagesScope & { anchor?: string; query?: string; depthBefore?: number; depthAfter?: number },
  io: StagesIo,
): Promise<TimelineStep> {
  const anchorId = opts.anchor?.trim() ?? '';
  const query = opts.query?.trim() ?? '';
  if (!anchorId && !query) throw new UsageError('timeline needs --anchor ID or a query');
  const before = clampDepth(opts.depthBefore);
  const after = clampDepth(opts.depthAfter);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const scope: StagesScope = { kb: opts.kb, global: opts.global, allBranches: opts.allBranches };

  // Step 1 runs first, with its own session, so only one index handle is open at a time.
  const candidates = !anchorId ? (await stageIndex(query, { ...scope, limit: TIMELINE_QUERY_LIMIT }, io)).results.map((r) => r.id) : [];

  return withLiveIndex(scope, io, (h, resolved): TimelineStep => {
    if (!fs.existsSync(resolved.root) || (liveNotes(h, false).length === 0 && !fs.existsSync(path.join(resolved.root, 'documents'))))
      return { step: 2, error: 'no learnings KB found', results: [] };
    const notes = chronological(liveNotes(h, !anchorId), resolved.root);
    let anchor: Note | undefined;
    if (anchorId) anchor = findNote(notes, anchorId);
    else {
      for (const id of candidates) if ((anchor = findNote(notes, id))) break;
      anchor ??= lexicalIndex(notes, query, 1)[0]?.note;
    }
    const at = anchor ? notes.indexOf(anchor) : -1;
    if (at < 0) return { step: 2, error: `anchor not found (${pyRepr(anchorId || query)})`, results: [] };
    const results = timelineWindow(notes, at, before, after).map((n): TimelineRow => ({
      id: cut(stageId(n), ID_MAX),
      title: cut(stageTitle(n), TITLE_MAX),
      project: cut(stageProject(n), PROJECT_MAX),
      date: cut(stageDate(n)?.text ?? '', DATE_MAX),
      anchor: n === anchor,
    }));
    return { step: 2, anchor: cut(stageId(notes[at]!), ID_MAX), depth_before: before, depth_after: after, results };
  });
}

// ---------------------------------------------------------------------------------------------
// Step 3: hydrate

/**
 * Step 3: the full note for each requested id, in request order (duplicates repeated). An id
 * matches a live note's `id` (else `name`) or its file stem; archived and forgotten notes are not
 * hydrated. Found → title, project, date, the whole frontmatter, the full body and the parsed
 * `<stem>.entities.yaml` sidecar (null without one); not found → `{ id, found: false }`.
 *
 * @throws UsageError when no (non-blank) id is given, or for a bad `--kb`.
 */
export async function stageHydrate(ids: string[], opts: StagesScope, io: StagesIo): Promise<HydrateStep> {
  const wanted = ids.map((i) => i.trim()).filter((i) => i !== '');
  if (wanted.length === 0) throw new UsageError('hydrate needs at least one ID');
  return withLiveIndex(opts, io, (h): HydrateStep => {
    const notes = liveNotes(h, true);
    const results = wanted.map((id): HydrateRow => {
      const note = findNote(notes, id);
      if (!note) return { id, found: false };
      return {
        id: stageId(note),
        found: true,
        title: stageTitle(note),
        project: stageProject(note),
        date: stageDate(note)?.text ?? '',
        frontmatter: note.frontmatter,
        body: note.body,
        entities: sidecarOf(h, note.path),
      };
    });
    return { step: 3, count: results.length, results };
  });
}

// ---------------------------------------------------------------------------------------------
// Workflow contract

/** The markdown contract agents read before a deep dig (`recall stages workflow`). */
export function workflowText(): string {
  return `# Reflect Staged Recall Workflow

Use this for deep digs — tracing how a problem evolved, or reading several related learnings in
full — instead of repeated one-shot recalls. It is the token-cheap discipline: triage many hits
through ID-only rows, then pay for full text only where it is needed (~10x fewer tokens than
hydrating everything up front).

## 3-Layer Pattern (ALWAYS follow this)

1. **index** — compact ID-only hits \`{id, title, score, relevance, project, date}\`, best first (relevance under 0.5 = a weak match)
   (~50-100 tokens per row).

   recall stages index "QUERY" --limit 20

2. **timeline** — chronological neighbours around an interesting hit (anchor by ID, or pass a
   query to pick the anchor); rows \`{id, title, project, date, anchor}\`, no bodies.

   recall stages timeline --anchor ID --depth-before 3 --depth-after 3

3. **hydrate** — full bodies, frontmatter and entity sidecars, ONLY for the ids that survived
   steps 1-2 (~500-1000 tokens per hydrated note).

   recall stages hydrate ID [ID ...]

## Rules

- Never hydrate without filtering through steps 1-2 first: index and timeline rows are ID-only so
  that many results cost few tokens.
- Always batch 2+ ids into one hydrate call rather than hydrating one id at a time.
- Every step prints JSON with a \`step\` number. A timeline that cannot find its anchor answers
  \`{"step": 2, "error": ..., "results": []}\`; a hydrate id that is not a live note answers
  \`{"id": ..., "found": false}\`.
`;
}
