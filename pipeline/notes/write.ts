/**
 * The KB writes of `recall add`, `recall supersede OLD NEW` and `recall forget ID` (re-exported by
 * pipeline/notes/notes.ts; the MCP server's tools call the same functions).
 *
 * Safe to call concurrently from any number of processes (CLI, MCP server, scripts): each write
 * resolves its notes through an index refreshed under the refresh lock (waiting for a `recall
 * index` that holds it), then re-reads and edits the files while holding the KB's writer lock
 * (withNotesLock), so an edit is made to the file as it is now, never to what the index said a
 * moment earlier. A write that did not happen throws (NoteWriteError for a runtime failure), and
 * the CLI exits non-zero: it never reports success for a note that did not land.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { detectProject } from '../scope.js';
import { isHarnessMemory, writableScope } from '../kb-sources/index.js';
import { cleanNote } from '../learnings/index.js';
import { checkKbDir } from '../run.js';
import { NotFoundError, UsageError } from '../../core/errors.js';
import { forgottenDir, hasMarkdown, kbLayout, notesDir } from '../../sources/kb/index.js';
import { isDistinctKeyOf, parseNote, pathId, unreviewedMark, type Note } from '../../core/note/index.js';
import {
  NoteWriteError,
  moveToForgotten,
  noteText,
  rewriteNote,
  withFrontmatter,
  withNotesLock,
  writeNewNote,
  type NewNote,
} from '../../sinks/note-writer.js';
import { candidates, harnessMemoryNote, resolveNote, withKb, withKbIfExists, type KbOptions, type NotesIo } from './kb.js';

/** Codes of errors that already say what went wrong with the command's input; anything else is a failed write. */
const NAMED_ERRORS: ReadonlySet<unknown> = new Set(['E_USAGE', 'E_NOT_FOUND', 'E_NOTE_EDIT', 'E_NOTE_WRITE', 'E_PERSONS_NOTE']);

/**
 * Which notes a write may change. `any` (the CLI, a person) changes any note; `unreviewed` (an
 * agent's MCP tools, `recall reject`) only notes an agent wrote that no person has accepted
 * (core/note/review.ts), checked on the file as it is under the writer lock.
 */
export type WriteGuard = 'any' | 'unreviewed';

/** A write refused because it would change a note a person wrote or accepted. */
export class PersonsNoteError extends Error {
  readonly code = 'E_PERSONS_NOTE';
  constructor(
    message: string,
    /** The note it would have changed, and its file. */
    readonly note: { id: string; title: string; path: string; kb: string },
  ) {
    super(message);
    this.name = 'PersonsNoteError';
  }
}

/** Throws PersonsNoteError unless the guard allows changing this note (read from its file as it is now). */
function checkGuard(guard: WriteGuard, now: Note, key: string, abs: string, root: string, what: string): void {
  if (guard === 'any' || unreviewedMark(now.frontmatter)) return;
  throw new PersonsNoteError(`${key}: a person's note (written or accepted by a person); ${what} it only with the person's consent`, {
    id: key,
    title: now.title,
    path: abs,
    kb: root,
  });
}

/** Run one write; a runtime failure (disk full, permission, busy index) becomes a NoteWriteError naming the command. */
export function writing<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof Error && NAMED_ERRORS.has((err as { code?: unknown }).code)) throw err;
    throw new NoteWriteError(`${what} failed, nothing written: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}

/**
 * The text of a note's file as it is now, checked to still be the note the index named (same id,
 * still in place). Called with the writer lock held.
 */
export function currentText(abs: string, note: Note, asked: string): { text: string; now: Note } {
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`${asked}: ${abs} was moved or removed meanwhile`);
    throw err;
  }
  const now = parseNote(text, note.path, note.location);
  // A file whose declared id another note already holds is indexed under a key of its own
  // (sources/index/key-claims.ts): that key, not the one its text declares, is what the index named.
  const place = pathId(note.path);
  const same =
    now.key === note.key || isDistinctKeyOf(note.key, now.key, note.path) || (place !== null && isDistinctKeyOf(note.key, now.key, place));
  if (!same) throw new NotFoundError(`${asked}: ${abs} now holds ${now.key}, not ${note.key}`);
  return { text, now };
}

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
  return writing('add', () => {
    const dir = newNotesDir(scope.root);
    // Where the note lands once links are followed: a KB whose documents/ links into a memory folder.
    refuseHarnessMemory(dir, io, config.home);
    // The notes folder first (with the user's umask, as before), so the lock never creates the KB root itself.
    fs.mkdirSync(dir, { recursive: true });
    const clash = (waitMs: number): void => {
      if (n.id && withKbIfExists(scope, config, io.env, (h) => candidates(h, n.id!).length > 0, waitMs))
        throw new UsageError(`--id ${n.id}: a note with this id already exists`);
    };
    // The slow part (bringing a big index up to date) before the writer lock, which is held for
    // milliseconds only; under the lock, a short second look catches a note with the same --id that
    // another add wrote meanwhile.
    clash(60_000);
    const file = withNotesLock(scope.root, () => {
      clash(2_000);
      return writeNewNote(dir, slug, text);
    });
    return { id, path: file, kb: scope.root, created };
  });
}

/**
 * The live note `id` names in the KB being written; when it is not there but in a harness's memory
 * folder that a recall here reads (and so shows), a usage error that says so instead of "no note".
 */
function writableNote(index: Parameters<typeof resolveNote>[0], id: string, root: string, opts: KbOptions, io: NotesIo): Note {
  try {
    return resolveNote(index, id, root, { live: true });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const held = harnessMemoryNote(opts, id, io);
    if (!held) throw err;
    throw new UsageError(
      `${id}: this note is in ${held.harness} memory folder (${held.file}), which recall reads but never changes; edit or delete it there`,
    );
  }
}

/**
 * A harness's memory folder is read-only to recall: it is the harness's to change. Checked on the
 * KB root and again on each path written, links followed (isHarnessMemory compares real paths): a
 * KB's documents/ or a single note may be a link into a memory folder.
 */
export function refuseHarnessMemory(target: string, io: NotesIo, home: string): void {
  if (isHarnessMemory(target, io.env, home))
    throw new UsageError(`${target}: in a harness's own memory folder, which recall reads but never changes; change it in the harness`);
}

export interface SupersedeResult {
  old: { id: string; path: string };
  new: { id: string; path: string };
}

export function supersede(oldId: string, newId: string, opts: KbOptions, io: NotesIo, guard: WriteGuard = 'any'): SupersedeResult {
  return writing('supersede', () =>
    withKb(
      opts,
      io,
      ({ index, scope, config }) => {
        refuseHarnessMemory(scope.root, io, config.home);
        const oldNote = writableNote(index, oldId, scope.root, opts, io);
        const newNote = writableNote(index, newId, scope.root, opts, io);
        if (oldNote.key === newNote.key) throw new UsageError(`${oldId}: a note cannot supersede itself`);
        const oldAbs = path.join(scope.root, oldNote.path);
        const newAbs = path.join(scope.root, newNote.path);
        for (const abs of [oldAbs, newAbs]) refuseHarnessMemory(abs, io, config.home);
        return withNotesLock(scope.root, () => {
          // The files as they are now: another writer may have edited them since the index was read.
          const oldNow = currentText(oldAbs, oldNote, oldId);
          const newNow = currentText(newAbs, newNote, newId);
          // Both files are edited (OLD retired, NEW's supersedes list): each must be one the caller may change.
          checkGuard(guard, oldNow.now, oldNote.key, oldAbs, scope.root, 'supersede');
          checkGuard(guard, newNow.now, newNote.key, newAbs, scope.root, 'edit');
          if (newNow.now.supersededBy)
            throw new UsageError(`${newId}: is itself superseded by ${newNow.now.supersededBy}; supersede with that note instead`);
          const listed = newNow.now.frontmatter['supersedes'];
          const prior = (Array.isArray(listed) ? listed : listed ? [listed] : []).map(String).filter((s) => s && s !== 'null');
          // Build both edits before writing either: a bad header stops it all.
          const oldText = withFrontmatter(oldNow.text, { superseded_by: newNote.key });
          const newText = withFrontmatter(newNow.text, { supersedes: [...new Set([...prior, oldNote.key])] });
          rewriteNote(newAbs, newText);
          try {
            rewriteNote(oldAbs, oldText);
          } catch (err) {
            // Half a supersession is worse than none: put NEW back as it was, then report the failure.
            let undone = true;
            try {
              rewriteNote(newAbs, newNow.text);
            } catch {
              undone = false;
            }
            const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
            throw new NoteWriteError(
              undone
                ? `supersede failed, nothing written: ${oldAbs}: ${why}`
                : `supersede failed half-way: ${newAbs} lists ${oldNote.key} under supersedes but ${oldAbs} could not be edited (${why})`,
            );
          }
          return { old: { id: oldNote.key, path: oldAbs }, new: { id: newNote.key, path: newAbs } };
        });
      },
      { write: true },
    ),
  );
}

export interface ForgetResult {
  id: string;
  from: string;
  to: string;
}

export function forget(id: string, opts: KbOptions, io: NotesIo, guard: WriteGuard = 'any'): ForgetResult {
  return retire(id, opts, io, { what: 'forget', guard });
}

/**
 * Move a live note into the forgotten folder (forget, and `recall reject`), under the writer lock;
 * `set` are frontmatter keys written into the forgotten copy (the note itself is never rewritten).
 */
export function retire(
  id: string,
  opts: KbOptions,
  io: NotesIo,
  how: { what: string; guard: WriteGuard; set?: Record<string, unknown> },
): ForgetResult {
  return writing(how.what, () =>
    withKb(
      opts,
      io,
      ({ index, scope, config }) => {
        refuseHarnessMemory(scope.root, io, config.home);
        const note = writableNote(index, id, scope.root, opts, io);
        const layout = kbLayout(scope.root);
        const from = path.join(scope.root, note.path);
        for (const abs of [from, path.join(scope.root, forgottenDir(layout))]) refuseHarnessMemory(abs, io, config.home);
        return withNotesLock(scope.root, () => {
          const { text, now } = currentText(from, note, id);
          checkGuard(how.guard, now, note.key, from, scope.root, how.what);
          // A note indexed under a key of its own because another live file declares the same id
          // leaves that key in its forgotten copy: read from the file alone (a fresh index), the copy
          // would otherwise take the shared id and retire the other note, which was never forgotten.
          // Only the copy is edited: a move that fails leaves the note as it was.
          const set = { ...(now.key !== note.key ? { id: note.key } : {}), ...how.set };
          const copy = Object.keys(set).length ? withFrontmatter(text, set) : undefined;
          const to = moveToForgotten(from, path.join(scope.root, notesDir(layout)), path.join(scope.root, forgottenDir(layout)), copy);
          return { id: note.key, from, to };
        });
      },
      { write: true },
    ),
  );
}
