/**
 * Memory the coding harnesses already keep on disk, found where each harness itself looks, so a
 * recall in a project can read it with no configuration.
 *
 * - Claude Code keeps one memory folder per project: `<config dir>/projects/<slug>/memory/`, where
 *   the config dir is `$CLAUDE_CONFIG_DIR` or `~/.claude`, and the slug is the project's path with
 *   every character that is not an ASCII letter or digit replaced by `-` (a path longer than 200
 *   characters keeps its first 200 and gets `-<hash>` appended). The project is the git work tree
 *   holding the folder Claude Code started in, a linked worktree counting as its main checkout, else
 *   that folder itself. A user's `autoMemoryDirectory` in `<config dir>/settings.json` replaces the
 *   whole path. This is what Claude Code 2.1.x does (checked against its bundled code).
 * - Codex, with its memories feature on (off by default), keeps one store for all projects in
 *   `$CODEX_HOME/memories/` (`~/.codex/memories/`): `MEMORY.md`, `memory_summary.md`,
 *   `rollout_summaries/*.md`. It is not per project, so it is found here but read only when asked.
 *
 * Nothing here creates a folder: a harness memory folder is read-only input to recall.
 */
import fs from 'node:fs';
import path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** Longest slug Claude Code uses as is; a longer one is cut here and suffixed with a hash (Claude Code's value). */
export const CLAUDE_SLUG_MAX = 200;

/** Largest settings.json read for `autoMemoryDirectory` (a settings file is a few KB). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The 32-bit string hash Claude Code suffixes long slugs with (Java's String.hashCode), in base 36. */
function slugHash(s: string): string {
  let h = 0;
  for (let i = 0; i < s.length; i += 1) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h).toString(36);
}

/** A project path as Claude Code names its folder under `projects/`. */
export function claudeProjectSlug(projectPath: string): string {
  const slug = projectPath.replace(/[^a-zA-Z0-9]/g, '-');
  return slug.length <= CLAUDE_SLUG_MAX ? slug : `${slug.slice(0, CLAUDE_SLUG_MAX)}-${slugHash(projectPath)}`;
}

const realOr = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** The git work tree holding `dir` (the folder with `.git`), or null. */
function workTreeOf(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return null;
  }
}

/**
 * A linked worktree's main checkout (Claude Code shares one memory folder between them); any other
 * folder as given. Follows the same checks Claude Code makes: `.git` is a `gitdir:` file whose git
 * dir sits in `<common dir>/worktrees/` and points back at this folder.
 */
function mainCheckout(top: string): string {
  try {
    const dotGit = fs.readFileSync(path.join(top, '.git'), 'utf8').trim();
    if (!dotGit.startsWith('gitdir:')) return top;
    const gitDir = path.resolve(top, dotGit.slice('gitdir:'.length).trim());
    const common = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
    if (path.dirname(gitDir) !== path.join(common, 'worktrees')) return top;
    if (realOr(fs.readFileSync(path.join(gitDir, 'gitdir'), 'utf8').trim()) !== path.join(realOr(top), '.git')) return top;
    return path.basename(common) !== '.git' ? realOr(common) : realOr(path.dirname(common));
  } catch {
    // A plain .git folder (EISDIR) or an unreadable file: the folder is its own checkout.
    return top;
  }
}

/** The folder Claude Code keys a project's memory by, for a session working in `dir`. */
export function claudeProjectRoot(dir: string): string {
  const real = realOr(dir);
  const top = workTreeOf(real);
  return (top ? mainCheckout(top) : real).normalize('NFC');
}

/** Claude Code's config dir: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: Env, home: string): string {
  return path.resolve(env['CLAUDE_CONFIG_DIR'] || path.join(home, '.claude'));
}

/** `autoMemoryDirectory` from the user's Claude Code settings, `~/` expanded; null when unset or unreadable. */
function userMemoryOverride(configDir: string, home: string): string | null {
  const file = path.join(configDir, 'settings.json');
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_SETTINGS_BYTES) return null;
    const v = (JSON.parse(fs.readFileSync(file, 'utf8')) as { autoMemoryDirectory?: unknown }).autoMemoryDirectory;
    if (typeof v !== 'string' || !v.trim()) return null;
    const p = v.trim();
    return path.resolve(p.startsWith('~/') ? path.join(home, p.slice(2)) : p);
  } catch {
    return null;
  }
}

/** The `autoMemoryDirectory` a user set for Claude Code, or null: a harness memory folder wherever it points. */
export function claudeMemoryOverride(env: Env, home: string): string | null {
  return userMemoryOverride(claudeConfigDir(env, home), home);
}

export interface HarnessMemory {
  /** The folder (it may not exist). */
  dir: string;
  /** How it was found, in words. */
  how: string;
}

/** Where Claude Code keeps the memory of the project a session in `dir` works on. */
export function claudeMemoryDir(dir: string, env: Env, home: string): HarnessMemory {
  const configDir = claudeConfigDir(env, home);
  const override = userMemoryOverride(configDir, home);
  if (override) return { dir: override, how: `autoMemoryDirectory in ${path.join(configDir, 'settings.json')}` };
  const root = claudeProjectRoot(dir);
  return { dir: path.join(configDir, 'projects', claudeProjectSlug(root), 'memory'), how: `Claude Code memory of ${root}` };
}

/** Where Codex keeps its memories store (one for all projects): `$CODEX_HOME/memories`. */
export function codexMemoryDir(env: Env, home: string): HarnessMemory {
  const codexHome = path.resolve(env['CODEX_HOME'] || path.join(home, '.codex'));
  return { dir: path.join(codexHome, 'memories'), how: 'Codex memories (all projects)' };
}
