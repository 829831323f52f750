/**
 * Staged recall: a token-cheap 3-layer workflow for deep digs, in the reflect-kb reference's
 * row format (kept so tools written for the reference read our output).
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
import { UsageError, errorMessage } from '../../core/errors.js';
import { DEFAULT_COMMAND, checkKbDir, openSession, type RecallCommand } from '../../pipeline/run.js';
import { type IndexHandle, liveNotes, sidecarText } from '../../sources/index/index.js';
import { withEachLiveIndex, withLiveIndex } from './live-index.js';
import type { Note } from '../../core/note/index.js';

import {
  DATE_MAX,
  ID_MAX,
  INDEX_DEFAULT_LIMIT,
  INDEX_MAX_LIMIT,
  PROJECT_MAX,
  TIMELINE_QUERY_LIMIT,
  TITLE_MAX,
  chronological,
  clampDepth,
  cut,
  findNote,
  indexRow,
  lexicalIndex,
  pyRepr,
  stageDate,
  stageId,
  stageProject,
  stageTitle,
  timelineWindow,
} from './rows.js';
import type {
  HydrateRow,
  HydrateStep,
  IndexStep,
  StageHit,
  StageSearch,
  StagesIo,
  StagesScope,
  TimelineRow,
  TimelineStep,
} from './types.js';

export type * from './types.js';
export { workflowText } from './workflow.js';
export {
  INDEX_DEFAULT_LIMIT,
  INDEX_MAX_LIMIT,
  INDEX_ROW_MAX_TOKENS,
  TIMELINE_DEFAULT_DEPTH,
  indexRow,
  lexicalIndex,
  noteStem,
  rowTokens,
  stageId,
  timelineWindow,
} from './rows.js';

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
 * @param opts.limit rows at most; default 20, an integer from 1 to INDEX_MAX_LIMIT.
 * @throws UsageError for an empty query, a bad limit or a `--kb` that is not a directory.
 */
export async function stageIndex(query: string, opts: StagesScope & { limit?: number }, io: StagesIo): Promise<IndexStep> {
  const q = query.trim();
  if (!q) throw new UsageError('empty query');
  const limit = opts.limit ?? INDEX_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > INDEX_MAX_LIMIT)
    throw new UsageError(`--limit must be an integer between 1 and ${INDEX_MAX_LIMIT}`);
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

  return withLiveIndex(
    scope,
    io,
    (h, resolved): TimelineStep => {
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
    },
    // The source holding the anchor, or with a query the one holding step 1's first row that is a
    // note (step 1 searched every source; the timeline is of one source's notes).
    anchorId
      ? (h) => findNote(liveNotes(h, false), anchorId) !== undefined
      : candidates.length
        ? (h) => candidates.some((id) => findNote(liveNotes(h, false), id) !== undefined)
        : undefined,
  );
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
  // Each id from the first source a hook here reads that holds it: with no KB configured the rows
  // of one staged search come from several sources (the reflect KB and Claude Code's memory).
  const found = new Map<number, HydrateRow>();
  withEachLiveIndex(opts, io, (h) => {
    if (found.size === wanted.length) return;
    const notes = liveNotes(h, true);
    wanted.forEach((id, i) => {
      const note = found.has(i) ? undefined : findNote(notes, id);
      if (!note) return;
      found.set(i, {
        id: stageId(note),
        found: true,
        title: stageTitle(note),
        project: stageProject(note),
        date: stageDate(note)?.text ?? '',
        frontmatter: note.frontmatter,
        body: note.body,
        entities: sidecarOf(h, note.path),
      });
    });
  });
  const results = wanted.map((id, i): HydrateRow => found.get(i) ?? { id, found: false });
  return { step: 3, count: results.length, results };
}
