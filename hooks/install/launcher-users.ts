/**
 * Which wiring still runs the stable launcher (stable-launcher.ts), so that `recall hooks install`
 * records it and `recall hooks uninstall` takes the launcher away with the last of it.
 *
 * The launcher's record (install.json) lists the files installs wired to it: hooks, MCP entries and
 * skills, of user scope or of a project anywhere. Each harness's user-scope files and the current
 * project's are looked at too. A launcher whose record has no list (written before installs kept
 * one) is never removed: a project wired then, in another folder, may still run it. A file is a user
 * while its text names the launcher; a project-scope wiring made elsewhere and listed in the record
 * keeps the launcher until its own uninstall. Only the two files recall writes there are ever
 * removed, and only when they are recall's (a user's file in that folder stays, and so the folder).
 */
import fs from 'node:fs';
import path from 'node:path';
import { HARNESSES, shellQuote } from './harness-config.js';
import { LAUNCHER_RECORD } from './stable-launcher.js';
import { targets, type FileChange, type InstallOptions } from './install.js';

/** The first line of every launcher recall writes (stable-launcher.ts LAUNCHER_TEMPLATE). */
export const LAUNCHER_MARK = "// recall's stable hook launcher";
/** The first words of scripts/hook.sh, which the launcher folder holds a copy of (stable-launcher.ts). */
export const HOOK_SCRIPT_MARK = '# Runs one recall hook';

const readText = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** The launcher record's parsed content when it is recall's (`{ root, wired? }`), else null. */
function record(dir: string): { root: string; wired: string[] } | null {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(dir, LAUNCHER_RECORD), 'utf8')) as { root?: unknown; wired?: unknown };
    if (typeof r.root !== 'string') return null;
    const wired = Array.isArray(r.wired) ? r.wired.filter((f): f is string => typeof f === 'string') : [];
    return { root: r.root, wired };
  } catch {
    return null;
  }
}

/** Whether the launcher's record lists the files wired to it (a record of this version). */
function recordedWired(dir: string): boolean {
  try {
    return Array.isArray((JSON.parse(fs.readFileSync(path.join(dir, LAUNCHER_RECORD), 'utf8')) as { wired?: unknown }).wired);
  } catch {
    return false;
  }
}

/**
 * Whether `text` names the launcher in `dir` (as written in a shell command, quoted or not, and that
 * in a JSON or TOML string: a path with a quote is `'...'\\''...'` in a command).
 */
function namesLauncher(text: string | null, dir: string): boolean {
  if (text === null) return false;
  const launch = path.join(dir, 'scripts', 'launch.mjs');
  return [launch, shellQuote(launch)].some((form) => text.includes(form) || text.includes(JSON.stringify(form).slice(1, -1)));
}

/**
 * The files that run the launcher in `dir` once `planned` is written: the record's list, each
 * harness's user-scope files and the project's at `cwd`, read as `planned` leaves them.
 */
export function launcherUsers(dir: string, planned: readonly FileChange[], o: Pick<InstallOptions, 'env' | 'cwd'>): string[] {
  const candidates = new Set(record(dir)?.wired ?? []);
  for (const harness of HARNESSES)
    for (const scope of ['user', 'project'] as const) {
      const t = targets({ harness, scope, env: o.env, cwd: o.cwd });
      for (const f of [t.hooks, t.mcp, path.join(t.skillDir, 'SKILL.md')]) candidates.add(f);
    }
  for (const c of planned) candidates.add(c.file);
  const after = new Map(planned.map((c) => [c.file, c.after]));
  return [...candidates].filter((f) => namesLauncher(after.has(f) ? after.get(f)! : readText(f), dir)).sort();
}

/**
 * The launcher's removal, when no wiring runs it once `planned` is written: its script and record,
 * each only when it is recall's own. Empty while something still runs it.
 */
export function launcherRemoval(dir: string, planned: readonly FileChange[], o: Pick<InstallOptions, 'env' | 'cwd'>): FileChange[] {
  // A record without the list was written before installs kept one: a project wired then, in
  // another folder, may still run the launcher, and its hooks would fail without it. It stays.
  if (!recordedWired(dir)) return [];
  if (launcherUsers(dir, planned, o).length > 0) return [];
  const out: FileChange[] = [];
  const script = path.join(dir, 'scripts', 'launch.mjs');
  const text = readText(script);
  if (text !== null && text.startsWith(LAUNCHER_MARK))
    out.push({ file: script, before: text, after: null, summary: ['- stable launcher (no wiring runs it any more)'], backup: false });
  const keeper = path.join(dir, 'scripts', 'hook.sh');
  const keeperText = readText(keeper);
  if (keeperText !== null && keeperText.startsWith(HOOK_SCRIPT_MARK))
    out.push({ file: keeper, before: keeperText, after: null, summary: ['- its hook deadline keeper (scripts/hook.sh)'], backup: false });
  const rec = path.join(dir, LAUNCHER_RECORD);
  if (record(dir))
    out.push({ file: rec, before: readText(rec), after: null, summary: ["- the launcher's record of the install it ran"], backup: false });
  return out;
}
