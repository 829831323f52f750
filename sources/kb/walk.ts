/**
 * Lists the files of a KB root with their stat data, without reading them.
 *
 * Layout (the reflect-kb folder layout, a compatibility contract): `documents/**` (notes, `*.entities.yaml` sidecars, `memories/`, and the
 * `.forgotten/` folder of expired notes) and `archived/**` (soft-archived notes). Symlinks are
 * followed only while they resolve inside the KB root: a cloned or shared KB must not be able to
 * make recall read `/etc/passwd`, `~/.ssh` or `/proc` (`followOutside` opts in, for KBs assembled
 * from links). A directory reached twice (symlink loop or alias) is listed once. Only regular files
 * are listed (no FIFOs, devices, sockets). Unreadable folders, broken links and refused links are
 * reported as problems and skipped.
 *
 * Any other folder of markdown is a KB too (an Obsidian vault, Claude Code's
 * `~/.claude/projects/<project>/memory/`): when the root has neither `documents/` nor `archived/`,
 * every `*.md` under the root is a note (paths relative to the root), `.forgotten/` at the top holds
 * forgotten notes, and other dot-folders (`.obsidian/`, `.trash/`, `.git/`) and `node_modules/` are
 * not read.
 *
 * This runs on every recall (it is how edits are noticed), so it is kept lean: one readdir per
 * folder and one lstat per entry (a stat and a realpath more for symlinks only), no Dirent
 * objects, no path normalisation.
 */
import fs from 'node:fs';
import { stallPoint } from '../../io/read-stall.js';
import type { NoteLocation } from '../../core/note/index.js';

export type KbFileKind = 'note' | 'sidecar';

export interface KbFile {
  /** Path relative to the KB root, forward slashes. */
  rel: string;
  abs: string;
  kind: KbFileKind;
  location: NoteLocation;
  mtimeMs: number;
  size: number;
  /**
   * The walk reached this file through a symlink (one inside the KB, or any with followOutside).
   * A file listed as not a link is opened with O_NOFOLLOW: a link swapped in after the walk is refused.
   */
  viaLink?: boolean;
  /**
   * The KB root, symlinks resolved, that the opened file must lie in (absent with followOutside).
   * Reading checks where the open descriptor really points, so a folder or file swapped for a
   * link to /etc between the walk and the read is refused rather than read.
   */
  confinedTo?: string;
}

export interface WalkProblem {
  rel: string;
  message: string;
}

export interface WalkResult {
  files: KbFile[];
  problems: WalkProblem[];
}

/**
 * Most files listed from a flat folder: a folder that holds more markdown than this is almost
 * certainly not a KB (a home directory, /tmp), and reading all of it would take minutes and
 * gigabytes. A reflect KB (documents/) has no such cap.
 */
export const MAX_FLAT_FILES = 50_000;

/** Deepest folder nesting followed below documents/ or archived/ (a guard against pathological trees). */
const MAX_DEPTH = 32;
const SIDECAR_SUFFIX = '.entities.yaml';

function kindOf(name: string): KbFileKind | null {
  if (name.endsWith(SIDECAR_SUFFIX)) return 'sidecar';
  if (name.endsWith('.md') || name.toLowerCase().endsWith('.md')) return 'note';
  return null;
}

/** How a KB root is laid out: a reflect KB (documents/, archived/) or a flat folder of markdown. */
export type KbLayout = 'reflect' | 'flat';

const isDir = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export function kbLayout(root: string): KbLayout {
  return isDir(`${root}/documents`) || isDir(`${root}/archived`) ? 'reflect' : 'flat';
}

/** Folder of live notes and of forgotten notes, relative to the root ('' = the root itself). */
export function notesDir(layout: KbLayout): string {
  return layout === 'reflect' ? 'documents' : '';
}
export function forgottenDir(layout: KbLayout): string {
  return layout === 'reflect' ? 'documents/.forgotten' : '.forgotten';
}

/** Folders of a flat KB that hold no notes: tool state, trash, dependencies. */
function skippedInFlat(name: string): boolean {
  return (name.startsWith('.') && name !== '.forgotten') || name === 'node_modules';
}

/**
 * Whether a folder holds any markdown file, looking at no more than `maxEntries` names (breadth
 * first, the same folders a flat walk reads): a quick "is this a KB at all" check that stays cheap
 * when pointed at a home directory.
 */
export function hasMarkdown(root: string, maxEntries = 20_000): boolean {
  const queue = [root];
  let seen = 0;
  while (queue.length && seen < maxEntries) {
    const dir = queue.shift()!;
    let entries: fs.Dirent[];
    stallPoint(dir);
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      seen += 1;
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      if (e.name.toLowerCase().endsWith('.md') && !e.isDirectory()) return true;
      if (e.isDirectory()) queue.push(`${dir}/${e.name}`);
    }
  }
  return false;
}

function errCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

export interface WalkOptions {
  /** Follow symlinks whose target lies outside the KB root (default false). */
  followOutside?: boolean;
}

/** Whether `target` (a real path) is `root` or lies below it. */
export function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** One walk over a KB: the files found, the problems met, and the guards against loops and floods. */
class KbWalker {
  readonly files: KbFile[] = [];
  readonly problems: WalkProblem[] = [];
  private capped = false;
  /** Folders already listed, by device and inode (loop and alias guard). */
  private readonly seen = new Set<string>();
  private realRoot: string | null = null;
  /** The lstat data of the last entry statted (statEntry returns it itself when the entry is no link). */
  private lastLstat: fs.Stats | null = null;

  constructor(
    readonly base: string,
    private readonly flat: boolean,
    private readonly followOutside: boolean,
  ) {}

  /** The KB root with its symlinks resolved (resolved once, when a link needs checking). */
  realBase(): string {
    if (this.realRoot === null) {
      try {
        this.realRoot = fs.realpathSync(this.base);
      } catch {
        this.realRoot = this.base;
      }
    }
    return this.realRoot;
  }

  visit(rel: string, st: fs.Stats, location: NoteLocation, depth: number): void {
    const id = `${st.dev}:${st.ino}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    if (depth > MAX_DEPTH) {
      this.problems.push({ rel, message: `folder nesting deeper than ${MAX_DEPTH}; not read` });
      return;
    }
    const absDir = rel ? `${this.base}/${rel}` : this.base;
    let names: string[];
    stallPoint(absDir);
    try {
      names = fs.readdirSync(absDir);
    } catch (err) {
      this.problems.push({ rel, message: `cannot read folder: ${errCode(err)}` });
      return;
    }
    for (const name of names) {
      if (this.flat && this.files.length >= MAX_FLAT_FILES) {
        this.capFlat(rel);
        return;
      }
      if (this.flat && (depth === 0 ? skippedInFlat(name) : name.startsWith('.') || name === 'node_modules')) continue;
      this.entry(rel, absDir, name, location, depth);
    }
  }

  private capFlat(rel: string): void {
    if (!this.capped)
      this.problems.push({
        rel: rel || '.',
        message: `more than ${MAX_FLAT_FILES} markdown files in a folder without documents/: is this a KB? only the first ${MAX_FLAT_FILES} are read`,
      });
    this.capped = true;
  }

  /** One name in a folder: a folder to descend into, a file to keep, or a problem to report. */
  private entry(rel: string, absDir: string, name: string, location: NoteLocation, depth: number): void {
    const childRel = rel ? `${rel}/${name}` : name;
    const abs = `${absDir}/${name}`;
    const kind = kindOf(name);
    const cst = this.statEntry(abs, childRel, kind);
    if (!cst) return;
    const viaLink = cst !== this.lastLstat;
    if (cst.isDirectory()) {
      const childLoc: NoteLocation =
        location === 'documents' && name === '.forgotten' && (!this.flat || depth === 0) ? 'forgotten' : location;
      this.visit(childRel, cst, childLoc, depth + 1);
    } else if (kind && cst.isFile()) {
      this.files.push({
        rel: childRel,
        abs,
        kind,
        location,
        mtimeMs: cst.mtimeMs,
        size: cst.size,
        ...(viaLink ? { viaLink } : {}),
        ...(this.followOutside ? {} : { confinedTo: this.realBase() }),
      });
    } else if (kind) {
      this.problems.push({ rel: childRel, message: 'not a regular file (FIFO, device or socket); not read' });
    }
  }

  /** Stat data of an entry, following a symlink that stays inside the KB (or any, when allowed). */
  private statEntry(abs: string, childRel: string, kind: KbFile['kind'] | null): fs.Stats | undefined {
    try {
      const lst = fs.lstatSync(abs);
      this.lastLstat = lst;
      if (!lst.isSymbolicLink()) return lst;
      if (!this.followOutside) {
        const target = fs.realpathSync(abs);
        if (!inside(this.realBase(), target)) {
          this.problems.push({
            rel: childRel,
            message: `symlink to ${target}, outside the KB; not followed (set RECALL_FOLLOW_OUTSIDE_LINKS=1 to allow)`,
          });
          return undefined;
        }
      }
      return fs.statSync(abs);
    } catch (err) {
      const code = errCode(err);
      // A name we would have read that no longer resolves: a dangling symlink (or a race).
      if (kind) this.problems.push({ rel: childRel, message: code === 'ENOENT' ? 'broken symlink' : `cannot stat: ${code}` });
      return undefined;
    }
  }
}

export function walkKb(root: string, opts: WalkOptions = {}): WalkResult {
  const flat = kbLayout(root) === 'flat';
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  const w = new KbWalker(base, flat, opts.followOutside === true);
  if (flat) {
    try {
      const st = fs.statSync(base);
      if (st.isDirectory()) w.visit('', st, 'documents', 0);
    } catch {
      /* no KB here */
    }
    return { files: w.files, problems: w.problems };
  }
  for (const top of ['documents', 'archived'] as const) {
    let st: fs.Stats;
    try {
      st = fs.statSync(`${base}/${top}`);
      if (!opts.followOutside && !inside(w.realBase(), fs.realpathSync(`${base}/${top}`))) {
        w.problems.push({ rel: top, message: 'symlink outside the KB; not followed (set RECALL_FOLLOW_OUTSIDE_LINKS=1 to allow)' });
        continue;
      }
    } catch {
      continue;
    }
    if (st.isDirectory()) w.visit(top, st, top, 0);
  }
  return { files: w.files, problems: w.problems };
}
