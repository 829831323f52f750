/**
 * Lists the files of a KB root with their stat data, without reading them.
 *
 * Layout (reference §1.2): `documents/**` (notes, `*.entities.yaml` sidecars, `memories/`, and the
 * `.forgotten/` folder of expired notes) and `archived/**` (soft-archived notes). Symlinks are
 * followed; a directory reached twice (symlink loop or alias) is listed once. Unreadable folders
 * and broken links are reported as problems and skipped.
 *
 * This runs on every recall (it is how edits are noticed), so it is kept lean: one readdir per
 * folder and one stat per entry, no Dirent objects, no path normalisation.
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

export function walkKb(root: string): WalkResult {
  const files: KbFile[] = [];
  const problems: WalkProblem[] = [];
  /** Folders already listed, by device and inode (loop and alias guard). */
  const seen = new Set<string>();
  const base = root.endsWith('/') ? root.slice(0, -1) : root;

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
        cst = fs.statSync(abs);
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
      }
    }
  };

  for (const top of ['documents', 'archived'] as const) {
    let st: fs.Stats;
    try {
      st = fs.statSync(`${base}/${top}`);
    } catch {
      continue;
    }
    if (st.isDirectory()) visit(top, st, top, 0);
  }
  return { files, problems };
}
