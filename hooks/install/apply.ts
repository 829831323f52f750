/** Writing an install plan (a backup of each changed file first) and saying what changed or would change. */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../io/atomic-write.js';
import type { FileChange, InstallOptions } from './install.js';

/** Write the changes (backup first); returns the backup files made. */
export function applyChanges(changes: FileChange[], now = new Date()): string[] {
  const backups: string[] = [];
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  for (const c of changes) {
    if (c.after === c.before) continue;
    if (c.before !== null && c.backup !== false) {
      const backup = `${c.file}.recall-backup-${stamp}`;
      fs.copyFileSync(c.file, backup);
      backups.push(backup);
    }
    if (c.after === null) {
      fs.rmSync(c.file, { force: true });
      // Remove recall's own folder (the skill's, the launcher's) once its file is gone (only when empty).
      try {
        fs.rmdirSync(path.dirname(c.file));
      } catch {
        /* not empty or not ours */
      }
    } else {
      fs.mkdirSync(path.dirname(c.file), { recursive: true });
      writeFileAtomic(c.file, c.after);
    }
  }
  return backups;
}

/** What changed (or would change), for the terminal. */
export function describeChanges(
  changes: FileChange[],
  o: Pick<InstallOptions, 'harness'>,
  dryRun: boolean,
  install: boolean,
  backups: string[] = [],
): string {
  const out: string[] = [];
  const skipped = changes.find((c) => c.skippedBecause);
  if (skipped) {
    // A second wiring beside the harness's own recall plugin would run recall twice on every prompt.
    out.push(`nothing changed: ${skipped.skippedBecause}`);
    out.push("  the plugin already runs recall's hooks; wiring them here too would run recall twice per prompt");
    if (skipped.skippedBecause!.includes('runs recall too'))
      out.push(`  recall runs twice now: remove the second wiring with \`recall hooks uninstall --harness ${o.harness}\``);
    out.push(
      `  to wire the hooks here instead, remove the plugin first: codex plugin remove ${/plugin (\S+)/.exec(skipped.skippedBecause!)?.[1] ?? 'recall@recall'}`,
    );
    return `${out.join('\n')}\n`;
  }
  const changed = changes.filter((c) => c.after !== c.before);
  if (changed.length === 0) out.push(`nothing to change: recall is ${install ? 'already installed' : 'not installed'} there`);
  for (const c of changed) {
    out.push(`${dryRun ? 'would change' : c.after === null ? 'removed' : c.before === null ? 'created' : 'updated'} ${c.file}`);
    for (const s of c.summary) out.push(`  ${s}`);
  }
  for (const b of backups) out.push(`backup: ${b}`);
  if (install && !dryRun && changed.length) {
    if (o.harness === 'codex')
      out.push('next: start codex and approve the new hooks when it asks (Codex runs user hooks only once trusted)');
    if (o.harness === 'claude') out.push('note: if the recall plugin is also installed, its hooks run as well; keep one of the two');
  }
  if (dryRun) for (const c of changed) out.push(`--- ${c.file} (after)\n${c.after ?? '(deleted)\n'}`);
  return `${out.join('\n')}\n`;
}
