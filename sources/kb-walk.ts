/**
 * Lists the files of a KB root with their stat data, without reading them.
 *
 * Layout (reference §1.2): `documents/**` (notes, `*.entities.yaml` sidecars, `memories/`, and the
 * `.forgotten/` folder of expired notes) and `archived/**` (soft-archived notes). Symlinks are
 * followed; a directory reached twice (symlink loop or alias) is listed once. Unreadable folders
 * are reported as problems and skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
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
  if (name.toLowerCase().endsWith('.md')) return 'note';
  return null;
}

export function walkKb(root: string): WalkResult {
  const files: KbFile[] = [];
  const problems: WalkProblem[] = [];
  const seenDirs = new Set<string>();

  const visit = (absDir: string, rel: string, location: NoteLocation, depth: number): void => {
    let real: string;
    try {
      real = fs.realpathSync(absDir);
    } catch (err) {
      problems.push({ rel: rel || '.', message: `cannot resolve folder: ${(err as Error).message}` });
      return;
    }
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    if (depth > MAX_DEPTH) {
      problems.push({ rel, message: `folder nesting deeper than ${MAX_DEPTH}; not read` });
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absDir, { withFileTypes: true });
    } catch (err) {
      problems.push({ rel, message: `cannot read folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      return;
    }
    for (const ent of entries) {
      const abs = path.join(absDir, ent.name);
      const childRel = `${rel}/${ent.name}`;
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      let st: fs.Stats | undefined;
      if (ent.isSymbolicLink()) {
        try {
          st = fs.statSync(abs);
        } catch {
          problems.push({ rel: childRel, message: 'broken symlink' });
          continue;
        }
        isDir = st.isDirectory();
        isFile = st.isFile();
      }
      if (isDir) {
        const childLoc: NoteLocation = location === 'documents' && ent.name === '.forgotten' ? 'forgotten' : location;
        visit(abs, childRel, childLoc, depth + 1);
        continue;
      }
      if (!isFile) continue;
      const kind = kindOf(ent.name);
      if (!kind) continue;
      try {
        st ??= fs.statSync(abs);
      } catch (err) {
        problems.push({ rel: childRel, message: `cannot stat: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
        continue;
      }
      files.push({ rel: childRel, abs, kind, location, mtimeMs: st.mtimeMs, size: st.size });
    }
  };

  for (const top of ['documents', 'archived'] as const) {
    const abs = path.join(root, top);
    if (fs.existsSync(abs)) visit(abs, top, top, 0);
  }
  return { files, problems };
}
