/**
 * Extra folders indexed together with a KB, each under a path prefix that no KB folder can have
 * (KB files live under `documents/` and `archived/`): the pulled team shard, searched by every
 * recall next to the KB's own notes. Their notes go through the same arms, filters and ranking; a
 * root may adjust each of its notes as it is indexed (the team shard sets authority, quarantine and
 * author from its provenance records).
 */
import type { Note } from '../../core/note/index.js';
import { walkKb, type WalkOptions, type WalkResult } from './walk.js';

export interface AttachedRoot {
  /** Prefix of the root's files in the index (`<prefix>/documents/…`). */
  prefix: string;
  /** Folder laid out like a KB (documents/, archived/). */
  root: string;
  /**
   * Called on each note of this root as it is (re)indexed, with the note file's absolute path;
   * null leaves the note out of this index (the team shard's copy of a note this KB published).
   */
  decorate?: (note: Note, abs: string) => Note | null;
}

/** The KB's files, then each attached root's under its prefix (each walked with the same link policy). */
export function walkWithAttached(kbRoot: string, attached: readonly AttachedRoot[], opts: WalkOptions = {}): WalkResult {
  const out = walkKb(kbRoot, opts);
  for (const a of attached) {
    const w = walkKb(a.root, opts);
    for (const f of w.files) out.files.push({ ...f, rel: `${a.prefix}/${f.rel}` });
    for (const p of w.problems) out.problems.push({ ...p, rel: `${a.prefix}/${p.rel}` });
  }
  return out;
}

/** The note adjuster of the attached root holding `rel`, or null for the KB's own files. */
export function decoratorFor(attached: readonly AttachedRoot[], rel: string): AttachedRoot['decorate'] | null {
  for (const a of attached) if (rel.startsWith(`${a.prefix}/`)) return a.decorate ?? null;
  return null;
}
