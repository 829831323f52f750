/**
 * Lists the files of a KB root with their stat data, without reading them.
 *
 * Layout (reference §1.2): `documents/**` (notes, `*.entities.yaml` sidecars, `memories/`, and the
 * `.forgotten/` folder of expired notes) and `archived/**` (soft-archived notes). Symlinks are
 * followed only while they resolve inside the KB root: a cloned or shared KB must not be able to
 * make recall read `/etc/passwd`, `~/.ssh` or `/proc` (`followOutside` opts in, for KBs assembled
 * from links). A directory reached twice (symlink loop or alias) is listed once. Only regular files
 * are listed (no FIFOs, devices, sockets). Unreadable folders, broken links and refused links are
 * reported as problems and skipped.
 *
 * This runs on every recall (it is how edits are noticed), so it is kept lean: one readdir per
 * folder and one lstat per entry (a stat and a realpath more for symlinks only), no Dirent
 * objects, no path normalisation.
 */
import fs from 'node:fs';
import type { NoteLocation } from './note.js';

export type KbFileKind = 'note' | 'sidecar';

export interface KbFile {
  /** Path relative to the KB root, forward slashes. */
  rel: string;
  abs: string;
  kind: KbFileKind;
  location: NoteLocation;
  mtimeMs: number;
  size: number;
}

export interface WalkProblem {
  rel: string;
  message: string;
}

export interface WalkResult {
  files: KbFile[];
  problems: WalkProblem[];
}

/** Deepest folder nesting followed below documents/ or archived/ (a guard against pathological trees). */
const MAX_DEPTH = 32;
const SIDECAR_SUFFIX = '.entities.yaml';

function kindOf(name: string): KbFileKind | null {
  if (name.endsWith(SIDECAR_SUFFIX)) return 'sidecar';
  if (name.endsWith('.md') || name.toLowerCase().endsWith('.md')) return 'note';
  return null;
}

function errCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

export interface WalkOptions {
  /** Follow symlinks whose target lies outside the KB root (default false). */
  followOutside?: boolean;
}

/** Whether `target` (a real path) is `root` or lies below it. */
function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith('/') ? root : `${root}/`);
}

export function walkKb(root: string, opts: WalkOptions = {}): WalkResult {
  const files: KbFile[] = [];
  const problems: WalkProblem[] = [];
  /** Folders already listed, by device and inode (loop and alias guard). */
  const seen = new Set<string>();
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  let realRoot: string | null = null;
  const realBase = (): string => {
    if (realRoot === null) {
      try {
        realRoot = fs.realpathSync(base);
      } catch {
        realRoot = base;
      }
    }
    return realRoot;
  };

  const visit = (rel: string, st: fs.Stats, location: NoteLocation, depth: number): void => {
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    if (depth > MAX_DEPTH) {
      problems.push({ rel, message: `folder nesting deeper than ${MAX_DEPTH}; not read` });
      return;
    }
    const absDir = `${base}/${rel}`;
    let names: string[];
    try {
      names = fs.readdirSync(absDir);
    } catch (err) {
      problems.push({ rel, message: `cannot read folder: ${errCode(err)}` });
      return;
    }
    for (const name of names) {
      const childRel = `${rel}/${name}`;
      const abs = `${absDir}/${name}`;
      const kind = kindOf(name);
      let cst: fs.Stats | undefined;
      try {
        cst = fs.lstatSync(abs);
        if (cst.isSymbolicLink()) {
          if (!opts.followOutside) {
            const target = fs.realpathSync(abs);
            if (!inside(realBase(), target)) {
              problems.push({ rel: childRel, message: `symlink to ${target}, outside the KB; not followed (set RECALL_FOLLOW_OUTSIDE_LINKS=1 to allow)` });
              continue;
            }
          }
          cst = fs.statSync(abs);
        }
      } catch (err) {
        const code = errCode(err);
        // A name we would have read that no longer resolves: a dangling symlink (or a race).
        if (kind) problems.push({ rel: childRel, message: code === 'ENOENT' ? 'broken symlink' : `cannot stat: ${code}` });
        continue;
      }
      if (cst.isDirectory()) {
        const childLoc: NoteLocation = location === 'documents' && name === '.forgotten' ? 'forgotten' : location;
        visit(childRel, cst, childLoc, depth + 1);
      } else if (kind && cst.isFile()) {
        files.push({ rel: childRel, abs, kind, location, mtimeMs: cst.mtimeMs, size: cst.size });
      } else if (kind) {
        problems.push({ rel: childRel, message: 'not a regular file (FIFO, device or socket); not read' });
      }
    }
  };

  for (const top of ['documents', 'archived'] as const) {
    let st: fs.Stats;
    try {
      st = fs.statSync(`${base}/${top}`);
      if (!opts.followOutside && !inside(realBase(), fs.realpathSync(`${base}/${top}`))) {
        problems.push({ rel: top, message: 'symlink outside the KB; not followed (set RECALL_FOLLOW_OUTSIDE_LINKS=1 to allow)' });
        continue;
      }
    } catch {
      continue;
    }
    if (st.isDirectory()) visit(top, st, top, 0);
  }
  return { files, problems };
}
