/**
 * The pure side of staged recall: the tunables, the compact ID-only rows of step 1, the lexical scan
 * used when the ranked search fails, and the chronological order and window of step 2. Field caps
 * and defaults follow the reflect-kb reference, so the rows read the same in tools written for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { str, type Note, declaredIdOf, hashedId, isHashedId, readableId } from '../../core/note/index.js';
import { parseLooseDate } from '../../core/dates.js';
import { contentTerms, termCoverage } from '../../core/terms.js';
import type { IndexRow, StageHit } from './types.js';

/** Default rows of step 1 (the reference's `--limit 20`): enough to triage, ~1-2k tokens in all. Range 1..1000. */
export const INDEX_DEFAULT_LIMIT = 20;
/** Most rows one index step returns: the same bound as a recall's limit (REFLECT_RECALL_LIMIT, 1..1000). */
export const INDEX_MAX_LIMIT = 1000;
/** Rows step 2 asks step 1 for when it picks the anchor from a query (reference value). */
export const TIMELINE_QUERY_LIMIT = 5;
/** Notes shown on each side of the anchor by default (reference value). Range 0..∞ (negatives clamp to 0). */
export const TIMELINE_DEFAULT_DEPTH = 3;
/** Token ceiling of one index row: the "~50-100 tokens per row" promise of the workflow. */
export const INDEX_ROW_MAX_TOKENS = 100;
/** Characters shaved off an over-long title per step (reference value). */
export const TITLE_SHAVE_CHARS = 20;
/** Field caps of the ID-only rows (reference values): long enough to recognise, short enough to stay cheap. */
export const ID_MAX = 120;
export const TITLE_MAX = 120;
export const PROJECT_MAX = 40;
export const DATE_MAX = 25;
/** Frontmatter fields naming a row's project, first non-empty wins (reference order, plus `project_id`). */
export const PROJECT_FIELDS = ['project', 'project_id', 'category', 'agent'] as const;
/** What parseNote calls a note without a usable title or name (the stem is shown instead). */
export const NO_TITLE = '(no title)';
/** Frontmatter fields giving a row's date, first parsable wins (then the body's archived header). */
export const DATE_FIELDS = ['created', 'date', 'updated'] as const;

// ---------------------------------------------------------------------------------------------
// Pure helpers

/** First `n` code points of `s` (Python slicing semantics, never splits a surrogate pair). */
export function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  return Array.from(s).slice(0, n).join('');
}

/** Python `repr()` of a string, as the reference writes it into "anchor not found (...)". */
export function pyRepr(s: string): string {
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
export function stageTitle(note: Note): string {
  return note.title !== NO_TITLE ? note.title : str(note.frontmatter['name']) || noteStem(note);
}

/** Project: `project` | `project_id` | `category` | `agent` as written, else ''. */
export function stageProject(note: Note): string {
  for (const f of PROJECT_FIELDS) {
    const v = str(note.frontmatter[f]);
    if (v) return v;
  }
  return '';
}

/** Date as written and its instant: first parsable of created, date, updated, then the archived header. */
export function stageDate(note: Note): { text: string; ms: number } | null {
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

export function compareStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Non-negative integer depth; absent or not a number → the default; negatives clamp to 0. */
export function clampDepth(v: number | undefined): number {
  if (v === undefined || !Number.isFinite(v)) return TIMELINE_DEFAULT_DEPTH;
  return Math.max(0, Math.floor(v));
}

/** The slice [anchor - before, anchor + after] of `items`, clamped at both ends. */
export function timelineWindow<T>(items: readonly T[], anchorAt: number, before: number, after: number): T[] {
  return items.slice(Math.max(0, anchorAt - before), Math.min(items.length, anchorAt + after + 1));
}

/** Notes in chronological order: by date (undated: file mtime, else last), then id, then index order. */
export function chronological(notes: readonly Note[], root: string): Note[] {
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

/** The first note whose stage id, key, file stem or hashed id equals `id`. */
export function findNote(notes: readonly Note[], id: string): Note | undefined {
  return (
    notes.find((n) => stageId(n) === id) ??
    notes.find((n) => n.key === id || noteStem(n) === id) ??
    // The hashed form injected text shows for an id it cannot print.
    (isHashedId(id) ? notes.find((n) => hashedId(stageId(n)) === id) : undefined) ??
    // The id as declared (`Pool size per worker`): the note that declared it.
    notes.find((n) => n.key !== id && declaredIdOf(n) === id) ??
    // A path that could not be shown as typed (`infra/Kafka Lag`): its readable form is the key.
    (readableId(id) !== id ? findNote(notes, readableId(id)) : undefined)
  );
}
