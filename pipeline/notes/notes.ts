/**
 * Notes as a person handles them: `recall show ID`, `recall list`, and the writes `recall add`,
 * `recall supersede OLD NEW`, `recall forget ID`. Library functions over the same KB a recall reads
 * (scope rules, `--kb`, flat folders); they return data and text, never print or exit.
 *
 * An ID is what recall shows for a note (frontmatter `id`, else `name`, else its path id); a file
 * name without `.md` or a path inside the KB also works when it names exactly one note.
 */
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { findSupersededBy, notesByDate, supersededKeys } from '../../sources/index/index.js';
import { parseLooseDate } from '../../core/dates.js';
import { howToApply, unreviewedLabel, unreviewedMark } from '../../core/note/index.js';
import { resolveNote, withEachSource, withKbHolding, type KbOptions, type NotesIo } from './kb.js';

export type { KbOptions, NotesIo } from './kb.js';

// ---------------------------------------------------------------------------------------------
// show

export interface ShownNote {
  id: string;
  path: string;
  location: string;
  title: string;
  key_insight: string;
  how_to_apply: string;
  confidence: string;
  learning_type: string;
  tags: string[];
  date: string | null;
  superseded_by: string | null;
  frontmatter: Record<string, unknown>;
  body: string;
}

export function showNote(id: string, opts: KbOptions, io: NotesIo): ShownNote {
  return withKbHolding(opts, id, io, ({ index, scope }) => {
    const n = resolveNote(index, id, scope.root);
    return {
      id: n.displayId,
      path: path.join(scope.root, n.path),
      location: n.location,
      title: n.title,
      key_insight: n.keyInsight,
      how_to_apply: n.howToApply,
      confidence: n.confidence,
      learning_type: n.learningType,
      tags: n.tags,
      date: n.dateMs !== null ? new Date(n.dateMs).toISOString().slice(0, 10) : null,
      // Retired by its own frontmatter, or by a newer note that declares it replaces this one.
      superseded_by: n.supersededBy ?? (n.location === 'documents' ? (findSupersededBy(index, [n.key]).get(n.key) ?? null) : null),
      frontmatter: n.frontmatter,
      body: n.body,
    };
  });
}

/** One note for a person: a header of facts, the key insight, how to apply, then the body. */
export function formatShown(n: ShownNote): string {
  const facts = [
    n.confidence && `confidence ${n.confidence}`,
    n.learning_type && `type ${n.learning_type}`,
    n.date && `dated ${n.date}`,
    n.tags.length ? `tags ${n.tags.join(', ')}` : '',
  ].filter(Boolean);
  const review = n.location === 'documents' ? unreviewedMark(n.frontmatter) : null;
  const state =
    n.location === 'forgotten'
      ? 'FORGOTTEN (never recalled)'
      : n.location === 'archived'
        ? 'ARCHIVED (never recalled)'
        : n.superseded_by
          ? `SUPERSEDED by ${n.superseded_by} (never recalled)`
          : review
            ? `UNREVIEWED: ${unreviewedLabel(review)} (recall accept ${n.id} / recall reject ${n.id})`
            : '';
  const lines = [`${n.title}`, `[${n.id}]  ${n.path}`, ...(state ? [state] : []), ...(facts.length ? [facts.join(' · ')] : []), ''];
  // Each thing once: a key insight that is the title (a memory's description is both) or that the
  // body repeats, and a how-to-apply line the body already holds, are not printed again above it.
  const flat = (t: string): string => t.replace(/\s+/g, ' ').trim().toLowerCase();
  const body = flat(n.body);
  if (n.key_insight && flat(n.key_insight) !== flat(n.title) && !body.includes(flat(n.key_insight))) lines.push(n.key_insight, '');
  if (n.how_to_apply && !howToApply(n.body)) lines.push(`How to apply: ${n.how_to_apply}`, '');
  lines.push(n.body.trim());
  return `${lines.join('\n').trimEnd()}\n`;
}

// ---------------------------------------------------------------------------------------------
// list

export interface ListOptions extends KbOptions {
  since?: string;
  tags?: string[];
  limit?: number;
  /** Include archived, forgotten and superseded notes (marked). */
  all?: boolean;
}

export interface ListedNote {
  id: string;
  date: string | null;
  confidence: string;
  title: string;
  tags: string[];
  state: 'live' | 'superseded' | 'archived' | 'forgotten';
  /** Inside `kb`. */
  path: string;
  /** The KB or memory folder holding the note (several are read with no KB configured). */
  kb: string;
  /** That folder's kind: pooled, project-shard, explicit, claude-memory, codex-memory, … */
  source: string;
  /** Only on a live note an agent wrote that no person accepted: the label recall shows with it. */
  review?: string;
}

export function listNotes(opts: ListOptions, io: NotesIo): ListedNote[] {
  const since = opts.since ? parseLooseDate(opts.since) : null;
  if (opts.since && !since) throw new UsageError(`--since ${opts.since}: not a date (use YYYY-MM-DD)`);
  const wantTags = (opts.tags ?? []).map((t) => t.toLowerCase());
  // Every source a hook here reads, newest first across them all; --limit applies to the whole list.
  const rows = withEachSource(opts, io, ({ index, scope }) => {
    const superseded = supersededKeys(index);
    const out: (ListedNote & { dateMs: number | null })[] = [];
    for (const n of notesByDate(index)) {
      const state: ListedNote['state'] =
        n.location !== 'documents'
          ? n.location
          : n.supersededBy || n.status === 'superseded' || n.status === 'archived' || superseded.has(n.key)
            ? 'superseded'
            : 'live';
      if (state !== 'live' && !opts.all) continue;
      if (since && (n.dateMs === null || n.dateMs < since.getTime())) continue;
      if (wantTags.length && !wantTags.every((t) => n.tags.includes(t))) continue;
      out.push({
        id: n.displayId,
        date: n.dateMs !== null ? new Date(n.dateMs).toISOString().slice(0, 10) : null,
        confidence: n.confidence,
        title: n.title,
        tags: n.tags,
        state,
        path: n.path,
        kb: scope.root,
        source: scope.kind,
        dateMs: n.dateMs,
        ...(state === 'live' && n.review ? { review: unreviewedLabel(n.review) } : {}),
      });
    }
    return out;
  }).flat();
  // A stable merge: dated notes newest first, undated ones last, each source's own order kept on ties.
  const sorted = rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (b.r.dateMs ?? -Infinity) - (a.r.dateMs ?? -Infinity) || a.i - b.i)
    .map(({ r }) => {
      const { dateMs: _dateMs, ...row } = r;
      return row;
    });
  return opts.limit !== undefined ? sorted.slice(0, opts.limit) : sorted;
}

/** A note from a harness's memory folder is marked: recall reads it but never changes it. */
function memoryTag(source: string): string {
  return source === 'claude-memory' ? '  (Claude Code memory)' : source === 'codex-memory' ? '  (Codex memories)' : '';
}

export function formatList(rows: readonly ListedNote[]): string {
  return rows
    .map(
      (r) =>
        `${(r.date ?? '—').padEnd(10)}  ${r.confidence.padEnd(6)}  ${r.id}  ${r.title}${r.state !== 'live' ? `  [${r.state}]` : r.review ? '  [unreviewed]' : ''}${memoryTag(r.source)}\n`,
    )
    .join('');
}

// ---------------------------------------------------------------------------------------------
// add, supersede, forget (pipeline/notes/write.ts)

export { addNote, supersede, forget, type AddResult, type SupersedeResult, type ForgetResult, type WriteGuard } from './write.js';
