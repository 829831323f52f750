/**
 * Notes as a person handles them: `recall show ID`, `recall list`, and the writes `recall add`,
 * `recall supersede OLD NEW`, `recall forget ID`. Library functions over the same KB a recall reads
 * (scope rules, `--kb`, flat folders); they return data and text, never print or exit.
 *
 * An ID is what recall shows for a note (frontmatter `id`, else `name`, else its path id); a file
 * name without `.md` or a path inside the KB also works when it names exactly one note.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from './config.js';
import { detectProject } from './scope.js';
import { isHarnessMemory, writableScope } from './kb-sources/index.js';
import { cleanNote } from './learnings/index.js';
import { checkKbDir } from './run.js';
import { UsageError } from '../core/errors.js';
import { notesByDate, supersededKeys } from '../sources/index-queries.js';
import { forgottenDir, hasMarkdown, kbLayout, notesDir } from '../sources/kb-walk.js';
import { parseNote } from '../core/note.js';
import { parseLooseDate } from '../core/dates.js';
import { moveToForgotten, noteText, rewriteNote, withFrontmatter, writeNewNote, type NewNote } from '../sinks/note-writer.js';
import { candidates, resolveNote, withKb, withKbIfExists, type KbOptions, type NotesIo } from './notes-kb.js';

export type { KbOptions, NotesIo } from './notes-kb.js';

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
  return withKb(opts, io, ({ index, scope }) => {
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
// add, supersede, forget

export interface AddResult {
  id: string;
  path: string;
  kb: string;
  created: boolean;
}

/** Where new notes go in a KB root: documents/ of a reflect KB (created for a new KB), else the folder itself. */
function newNotesDir(root: string): string {
  const flat = fs.existsSync(root) && kbLayout(root) === 'flat' && hasMarkdown(root);
  return path.join(root, notesDir(flat ? 'flat' : 'reflect'));
}

export function addNote(given: NewNote, opts: KbOptions, io: NotesIo, now = new Date()): AddResult {
  // What reaches the disk has no secrets and no invisible characters, whoever wrote it.
  const n = cleanNote(given);
  if (!n.title.trim()) throw new UsageError('a note needs a title (--title)');
  if (!n.keyInsight.trim()) throw new UsageError('a note needs a key insight (--insight): the one sentence recall shows');
  const config = loadConfig(io.env);
  // A --kb that does not exist yet is a new KB: add creates it.
  if (opts.kb && fs.existsSync(path.resolve(io.cwd, opts.kb))) checkKbDir(opts.kb, io.cwd, { allowEmpty: true });
  // The reflect KB of this project: a harness's memory folder is read, never written.
  const scope = writableScope(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd, env: io.env });
  const created = !fs.existsSync(scope.root);
  const project = n.project ?? (detectProject(config, io.cwd) || undefined);
  const { id, slug, text } = noteText({ ...n, ...(project ? { project } : {}) }, now);
  // The note must read back as written: the same parser recall uses checks it before it lands.
  const parsed = parseNote(text, `documents/${slug}.md`, 'documents');
  if (parsed.key !== id) throw new Error(`the written note would read back with id ${parsed.key}, not ${id}`);
  if (n.id) {
    const clash = withKbIfExists(scope, config, io.env, (h) => candidates(h, n.id!).length > 0);
    if (clash) throw new UsageError(`--id ${n.id}: a note with this id already exists`);
  }
  const file = writeNewNote(newNotesDir(scope.root), slug, text);
  return { id, path: file, kb: scope.root, created };
}

export interface SupersedeResult {
  old: { id: string; path: string };
  new: { id: string; path: string };
}

/** A harness's memory folder is read-only to recall: it is the harness's to change. */
function refuseHarnessMemory(root: string, io: NotesIo, home: string): void {
  if (isHarnessMemory(root, io.env, home))
    throw new UsageError(`${root}: a harness's own memory folder, which recall reads but never changes; change it in the harness`);
}

export function supersede(oldId: string, newId: string, opts: KbOptions, io: NotesIo): SupersedeResult {
  return withKb(opts, io, ({ index, scope, config }) => {
    refuseHarnessMemory(scope.root, io, config.home);
    const oldNote = resolveNote(index, oldId, scope.root, { live: true });
    const newNote = resolveNote(index, newId, scope.root, { live: true });
    if (oldNote.key === newNote.key) throw new UsageError(`${oldId}: a note cannot supersede itself`);
    if (newNote.supersededBy)
      throw new UsageError(`${newId}: is itself superseded by ${newNote.supersededBy}; supersede with that note instead`);
    const oldAbs = path.join(scope.root, oldNote.path);
    const newAbs = path.join(scope.root, newNote.path);
    const listed = newNote.frontmatter['supersedes'];
    const prior = (Array.isArray(listed) ? listed : listed ? [listed] : []).map(String).filter((s) => s && s !== 'null');
    // Read both texts and build both edits before writing either: a bad header stops it all.
    const oldText = withFrontmatter(fs.readFileSync(oldAbs, 'utf8'), { superseded_by: newNote.key });
    const newText = withFrontmatter(fs.readFileSync(newAbs, 'utf8'), { supersedes: [...new Set([...prior, oldNote.key])] });
    rewriteNote(newAbs, newText);
    rewriteNote(oldAbs, oldText);
    return { old: { id: oldNote.key, path: oldAbs }, new: { id: newNote.key, path: newAbs } };
  });
}

export interface ForgetResult {
  id: string;
  from: string;
  to: string;
}

export function forget(id: string, opts: KbOptions, io: NotesIo): ForgetResult {
  return withKb(opts, io, ({ index, scope, config }) => {
    refuseHarnessMemory(scope.root, io, config.home);
    const note = resolveNote(index, id, scope.root, { live: true });
    const layout = kbLayout(scope.root);
    const from = path.join(scope.root, note.path);
    const to = moveToForgotten(from, path.join(scope.root, notesDir(layout)), path.join(scope.root, forgottenDir(layout)));
    return { id: note.key, from, to };
  });
}
