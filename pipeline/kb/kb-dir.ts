/** An explicit `--kb` checked before anything reads or writes it. */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { hasMarkdown, kbLayout } from '../../sources/kb/index.js';

/**
 * An explicit `--kb` must be a folder holding a KB: a reflect KB (documents/ or archived/) or any
 * folder with markdown files in it. `allowEmpty` accepts an empty folder (a KB about to be written).
 */
export function checkKbDir(kb: string, cwd: string, opts: { allowEmpty?: boolean } = {}): void {
  const abs = path.resolve(cwd, kb);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new UsageError(`--kb ${kb}: no such directory`);
  }
  if (!st.isDirectory()) throw new UsageError(`--kb ${kb}: not a directory`);
  if (!opts.allowEmpty && kbLayout(abs) === 'flat' && !hasMarkdown(abs)) {
    throw new UsageError(`--kb ${kb}: not a KB (no documents/ folder and no markdown files)`);
  }
}
