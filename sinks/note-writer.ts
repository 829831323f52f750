/**
 * Writing the KB: new notes (`recall add`), supersession (`recall supersede`) and forgetting
 * (`recall forget`), in the reference's format so the reflect engine and recall read the result
 * alike.
 *
 * - A new note is `<notes dir>/<slug>.md` with the learning template's frontmatter (type, id
 *   `lrn-<slug>-<hash6>`, title, dates, confidence, learning_type, tags, applies_when, key_insight,
 *   superseded_by, provenance) and a body whose `**How to apply:**` line recall shows. It is created atomically and
 *   never over an existing file (written aside, then hard-linked into place, which fails if the name
 *   is taken).
 * - Supersession edits frontmatter in place with a YAML document model that keeps the author's
 *   comments, key order and quoting: the old note gets `superseded_by: NEW`, the new one lists OLD
 *   under `supersedes`. Either alone retires OLD; both keep the link visible from each side.
 * - Forgetting moves the note (and its `<stem>.entities.yaml` sidecar) into the forgotten folder,
 *   `documents/.forgotten/` (a flat KB: `.forgotten/`), keeping its path below the notes folder; a
 *   name already taken there gets `.1`, `.2`, … before `.md`. Retired notes are never recalled.
 *
 * Every file is replaced by rename, so a reader sees the old text or the new, never a torn one.
 * Writers of one KB take turns (withNotesLock): two `recall supersede X HUB` at once each read HUB's
 * `supersedes` list, and without turns the second rename would drop the first one's entry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { isMap, parseDocument } from 'yaml';
import { writeFileAtomic } from '../io/atomic-write.js';
import { LockBusyError, withFileLock } from './logs/index.js';

import { TIER_CONFIDENCE, type ConfidenceTier } from '../core/confidence.js';
import { STATUS_PROPOSED, isAgentAuthor } from '../core/note/index.js';

export { CONFIDENCE_TIERS, type ConfidenceTier } from '../core/confidence.js';
/** The learning types of the default mode (each has a glyph); others are accepted and shown with `·`. */
export const LEARNING_TYPES = ['pattern', 'bug-fix', 'decision', 'correction', 'anti-pattern'] as const;

/** Longest slug part of a file name and id (long titles make unwieldy paths). */
const SLUG_MAX = 60;

export interface NewNote {
  title: string;
  keyInsight: string;
  howToApply?: string;
  tags?: string[];
  confidence?: ConfidenceTier;
  learningType?: string;
  /** Markdown body (problem, solution, context); optional. */
  body?: string;
  /** Explicit id; default `lrn-<slug>-<hash6>`. */
  id?: string;
  project?: string;
  /** Ids this note replaces. */
  supersedes?: string[];
  /** When the learning applies: commands (`pnpm|npm install`) and path globs (`apps/api/**`), for the tool-call hook. */
  appliesWhen?: string[];
  /** Who wrote it, for the provenance block: the tool (default `recall add`), the harness and its session. */
  source?: { tool: string; harness?: string; sessionId?: string };
}

export function slugify(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, SLUG_MAX).replace(/-+$/, '') || 'note';
}

/** Local calendar date, YYYY-MM-DD. */
function isoDate(now: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** A YAML scalar as JSON (valid YAML 1.2), so no value can break the header or smuggle keys in. */
const q = (v: string): string => JSON.stringify(v);

/** Whether a new note is an agent's word (core/note/review.ts): written `status: proposed`, at most medium. */
export function writtenByAgent(n: Pick<NewNote, 'source'>): boolean {
  return (
    n.source !== undefined && isAgentAuthor({ tool: n.source.tool, harness: n.source.harness ?? '', sessionId: n.source.sessionId ?? '' })
  );
}

/**
 * The text of a new note. Pure (the clock is passed in). A note an agent writes is proposed, not
 * yet reviewed, and never claims high confidence: a person's `recall accept` vouches for it.
 */
export function noteText(n: NewNote, now: Date): { id: string; slug: string; text: string } {
  const slug = slugify(n.title);
  const id =
    n.id ?? `lrn-${slug}-${createHash('sha1').update(`${n.title}\n${n.keyInsight}\n${now.toISOString()}`).digest('hex').slice(0, 6)}`;
  const byAgent = writtenByAgent(n);
  const asked = n.confidence ?? 'medium';
  const tier = byAgent && asked === 'high' ? 'medium' : asked;
  const date = isoDate(now);
  const tags = [...new Set((n.tags ?? []).map((t) => t.trim().toLowerCase()).filter(Boolean))];
  const body = (n.body ?? '').trim();
  const lines = [
    '---',
    'type: learning',
    `id: ${q(id)}`,
    `title: ${q(n.title.trim())}`,
    `created: ${date}`,
    `updated: ${date}`,
    `confidence: ${tier}`,
    `confidence_num: ${TIER_CONFIDENCE[tier]}`,
    `learning_type: ${q(n.learningType ?? 'pattern')}`,
    ...(n.project ? [`project_id: ${q(n.project)}`] : []),
    `tags: [${tags.map(q).join(', ')}]`,
    ...(n.appliesWhen?.length ? [`applies_when: [${n.appliesWhen.map((w) => q(w.trim())).join(', ')}]`] : []),
    `key_insight: ${q(n.keyInsight.trim())}`,
    ...(n.supersedes?.length ? [`supersedes: [${n.supersedes.map(q).join(', ')}]`] : []),
    ...(byAgent ? [`status: ${STATUS_PROPOSED}`] : []),
    'superseded_by: null',
    'forget_after: null',
    'provenance:',
    n.source ? `  source_tool: ${q(n.source.tool)}` : '  source_tool: recall add',
    ...(n.source?.harness ? [`  harness: ${q(n.source.harness)}`] : []),
    ...(n.source?.sessionId ? [`  session_id: ${q(n.source.sessionId)}`] : []),
    `  detected_at: ${q(now.toISOString())}`,
    '---',
    '',
    `# ${n.title.trim()}`,
    '',
    n.keyInsight.trim(),
    '',
    ...(body ? [body, ''] : []),
    ...(n.howToApply?.trim() ? [`**How to apply:** ${n.howToApply.trim().replace(/\s*\n\s*/g, ' ')}`, ''] : []),
  ];
  return { id, slug, text: lines.join('\n') };
}

/**
 * Create `file` with `text`, atomically and only if no file has that name: the text is written to
 * a temp file in the same folder and hard-linked into place (link fails when the name exists).
 * Returns false when the name is taken.
 */
export function createExclusive(file: string, text: string): boolean {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  fs.writeFileSync(tmp, text);
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Write a new note into `notesDir` as `<slug>.md` (`<slug>-2.md`, … when taken). Returns its path. */
export function writeNewNote(notesDir: string, slug: string, text: string): string {
  for (let i = 1; i < 1000; i += 1) {
    const file = path.join(notesDir, `${i === 1 ? slug : `${slug}-${i}`}.md`);
    if (createExclusive(file, text)) return file;
  }
  throw new Error(`${notesDir}: no free file name for ${slug}.md`);
}

/**
 * A write of the KB that did not happen (or happened only in part, as the message says): the CLI
 * exits 1 with this message, never 0.
 */
export class NoteWriteError extends Error {
  readonly code = 'E_NOTE_WRITE';
  constructor(message: string) {
    super(message);
    this.name = 'NoteWriteError';
  }
}

/**
 * Longest wait for another writer of the same KB. A turn takes milliseconds (read, edit, rename),
 * so even dozens of writers at once on a loaded machine pass well within it.
 */
const NOTES_LOCK_WAIT_MS = 30_000;

/**
 * The lock file of a KB's writers, `<KB root>/.recall-notes.lock`: in the KB rather than the state
 * dir so that writers with different state dirs (two tools, two users of a shared KB) take turns
 * too. Recall never reads it as a note (dot-files at the root are not part of either layout).
 */
export const notesLockFile = (root: string): string => path.join(root, '.recall-notes.lock');

/**
 * Run `fn` (read-modify-write of notes of the KB at `root`) while no other writer of that KB runs.
 * Throws NoteWriteError when another writer kept the lock past NOTES_LOCK_WAIT_MS.
 */
export function withNotesLock<T>(root: string, fn: () => T, waitMs = NOTES_LOCK_WAIT_MS): T {
  try {
    return withFileLock(notesLockFile(root).replace(/\.lock$/, ''), fn, waitMs);
  } catch (err) {
    if (err instanceof LockBusyError)
      throw new NoteWriteError(`nothing written: another writer of ${root} held its lock for more than ${Math.round(waitMs / 1000)} s`);
    throw err;
  }
}

export class NoteEditError extends Error {
  readonly code = 'E_NOTE_EDIT';
  constructor(message: string) {
    super(message);
    this.name = 'NoteEditError';
  }
}

/**
 * A note's text with frontmatter keys set (`undefined` leaves a key alone). Comments, order and
 * formatting of the other keys are kept. A note without frontmatter gets a header holding only
 * these keys. Throws NoteEditError when the header is not valid YAML.
 */
export function withFrontmatter(text: string, set: Record<string, unknown>): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const src = bom ? text.slice(1) : text;
  let header = '';
  let rest: string;
  if (src.startsWith('---')) {
    const end = src.indexOf('\n---', 3);
    if (end < 0) throw new NoteEditError('frontmatter starts with --- but has no closing ---');
    header = src.slice(src.indexOf('\n') + 1, end + 1);
    rest = src.slice(end + 1);
  } else {
    rest = `---\n\n${src}`;
  }
  const doc = parseDocument(header);
  if (doc.errors.length) throw new NoteEditError(`invalid YAML frontmatter: ${doc.errors[0]!.message.split('\n')[0]}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new NoteEditError('frontmatter is not a mapping');
  for (const [k, v] of Object.entries(set)) if (v !== undefined) doc.set(k, v);
  const yamlText = doc.toString({ lineWidth: 0 });
  return `${bom}---\n${yamlText}${rest}`;
}

/** Replace a file's text atomically, keeping its permissions. */
export function rewriteNote(file: string, text: string): void {
  const mode = fs.statSync(file).mode & 0o777;
  writeFileAtomic(file, text);
  fs.chmodSync(file, mode);
}

/**
 * Move a note (and its entity sidecar) into `forgottenDir`, keeping its path below `notesDir`.
 * Returns the new path of the note. Never overwrites: a taken name gets `.1`, `.2`, … before `.md`.
 * With `text`, the forgotten copy holds that text instead (the note edited on its way out); the
 * note itself is never rewritten, so a move that fails leaves it exactly as it was (a symlink too).
 */
export function moveToForgotten(abs: string, notesDir: string, forgottenDir: string, text?: string): string {
  const rel = path.relative(notesDir, abs);
  const base = path.join(forgottenDir, rel).replace(/\.md$/i, '');
  let target = `${base}.md`;
  for (let i = 1; fs.existsSync(target); i += 1) target = `${base}.${i}.md`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // A hard link (or an exclusive create) then unlink is a no-clobber rename: it fails rather than
  // replace a note that appeared under that name in the meantime.
  if (text === undefined) fs.linkSync(abs, target);
  else writeCopy(target, text, fs.statSync(abs).mode & 0o777);
  try {
    fs.unlinkSync(abs);
  } catch (err) {
    // The note stays where it was: the copy just made would be a second one.
    fs.rmSync(target, { force: true });
    throw err;
  }
  const sidecar = abs.replace(/\.md$/i, '.entities.yaml');
  if (fs.existsSync(sidecar)) {
    const to = target.replace(/\.md$/i, '.entities.yaml');
    if (!fs.existsSync(to)) fs.renameSync(sidecar, to);
  }
  return target;
}

/** Create `file` with `text` and `mode`, never replacing a file; a half-written copy is removed. */
function writeCopy(file: string, text: string, mode: number): void {
  try {
    fs.writeFileSync(file, text, { flag: 'wx', mode });
    fs.chmodSync(file, mode);
  } catch (err) {
    // EEXIST: the name was taken meanwhile by a file that is not ours to remove.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') fs.rmSync(file, { force: true });
    throw err;
  }
}
