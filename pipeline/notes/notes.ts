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
import { notesByDate, supersededKeys } from '../../sources/index/index.js';
import { parseLooseDate } from '../../core/dates.js';
import { resolveNote, withKb, withKbHolding, type KbOptions, type NotesIo } from './kb.js';

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
      superseded_by: n.supersededBy,
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
  const state =
    n.location === 'forgotten'
      ? 'FORGOTTEN (never recalled)'
      : n.location === 'archived'
        ? 'ARCHIVED (never recalled)'
        : n.superseded_by
          ? `SUPERSEDED by ${n.superseded_by} (never recalled)`
          : '';
  const lines = [`${n.title}`, `[${n.id}]  ${n.path}`, ...(state ? [state] : []), ...(facts.length ? [facts.join(' · ')] : []), ''];
  if (n.key_insight) lines.push(n.key_insight, '');
  if (n.how_to_apply) lines.push(`How to apply: ${n.how_to_apply}`, '');
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
  path: string;
}

export function listNotes(opts: ListOptions, io: NotesIo): ListedNote[] {
  const since = opts.since ? parseLooseDate(opts.since) : null;
  if (opts.since && !since) throw new UsageError(`--since ${opts.since}: not a date (use YYYY-MM-DD)`);
  const wantTags = (opts.tags ?? []).map((t) => t.toLowerCase());
  return withKb(opts, io, ({ index }) => {
    const superseded = supersededKeys(index);
    const out: ListedNote[] = [];
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
      });
      if (opts.limit !== undefined && out.length >= opts.limit) break;
    }
    return out;
  });
}

export function formatList(rows: readonly ListedNote[]): string {
  return rows
    .map(
      (r) => `${(r.date ?? '—').padEnd(10)}  ${r.confidence.padEnd(6)}  ${r.id}  ${r.title}${r.state !== 'live' ? `  [${r.state}]` : ''}\n`,
    )
    .join('');
}

// ---------------------------------------------------------------------------------------------
// add, supersede, forget (pipeline/notes/write.ts)

export { addNote, supersede, forget, type AddResult, type SupersedeResult, type ForgetResult, type WriteGuard } from './write.js';
