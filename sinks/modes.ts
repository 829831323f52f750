/**
 * Mode files: the active mode names the learning types and their glyphs (the reference's mode files, kept compatible).
 *
 * A mode is `<modes dir>/<id>.json` with `learning_types: [{ id, emoji, work_emoji? }]`. A
 * `parent--child` id loads the parent and deep-merges the child file over it (one level of
 * inheritance only, as in the reference). This module is the only sink that touches the
 * filesystem for modes; the glyph map it returns is plain data for the pure renderers.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Mode used when none is configured or the configured one does not exist (the reference's default). */
export const DEFAULT_MODE = 'engineering';

/** Separator of an inherited mode id (`parent--child`). */
export const MODE_INHERIT_SEPARATOR = '--';

/**
 * A mode id is a file stem: letters, digits, `_`, `-`, `.` (no leading dot). Anything else
 * (`../x`, `a/b`) is treated as an unknown mode, so a mode name can never escape the modes dir.
 */
const MODE_ID_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export interface LoadGlyphsOptions {
  /** REFLECT_MODE, or null. */
  mode: string | null;
  /** REFLECT_MODES_DIR, or null for the bundled modes. */
  modesDir: string | null;
  /** The project's folder (the caller decides what the project is: pipeline/scope.ts), or null for cwd. */
  projectDir: string | null;
  cwd: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The bundled modes dir. This file runs from source (`sinks/modes.ts` under jest), from tsc output
 * (`dist/sinks/modes.js`, where tsc does not copy the JSON) and from the esbuild bundle
 * (`dist/recall.mjs`), so the first existing of `<here>/modes`, `<here>/../sinks/modes`,
 * `<here>/../../sinks/modes` wins. None exists → the first candidate (loading then fails → empty map).
 */
export function bundledModesDir(moduleUrl: string = import.meta.url): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [path.join(here, 'modes'), path.join(here, '..', 'sinks', 'modes'), path.join(here, '..', '..', 'sinks', 'modes')];
  return candidates.find(isDir) ?? candidates[0]!;
}

/**
 * The active mode id: `opts.mode`, else the `"mode"` string of `<project>/.reflect/config.json`
 * (project = projectDir, else cwd), else DEFAULT_MODE.
 * A missing or unreadable config file falls through to the default; blank values count as unset.
 */
export function resolveModeId(opts: LoadGlyphsOptions): string {
  if (opts.mode !== null && opts.mode.trim() !== '') return opts.mode.trim();
  const project = opts.projectDir !== null && opts.projectDir.trim() !== '' ? opts.projectDir : path.resolve(opts.cwd);
  try {
    const cfg: unknown = JSON.parse(readFileSync(path.join(project, '.reflect', 'config.json'), 'utf8'));
    if (isObject(cfg) && typeof cfg['mode'] === 'string' && cfg['mode'].trim() !== '') return cfg['mode'].trim();
  } catch {
    // no config, or not JSON: the default mode applies
  }
  return DEFAULT_MODE;
}

/** Deep merge of plain objects, `over` winning; arrays and scalars are replaced, not merged. */
export function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isObject(b) && isObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

class ModeFileError extends Error {}

/** Parsed `<dir>/<id>.json`, or null when the file does not exist; bad JSON or a non-object throws. */
function readModeFile(dir: string, id: string): Json | null {
  const file = path.join(dir, `${id}.json`);
  if (!existsSync(file)) return null;
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isObject(parsed)) throw new ModeFileError(`${file} is not a JSON object`);
  return parsed;
}

/**
 * The mode object for `id`: an unknown (or invalid) id falls back to DEFAULT_MODE; `parent--child`
 * is the child file merged over the parent (a missing child leaves the parent as is; a missing
 * parent means an unknown mode). Throws when the mode that applies cannot be read or parsed.
 */
export function loadMode(dir: string, id: string): Json {
  const fallback = (): Json => {
    const def = readModeFile(dir, DEFAULT_MODE);
    if (def === null) throw new ModeFileError(`no ${DEFAULT_MODE}.json in ${dir}`);
    return def;
  };
  if (!MODE_ID_RE.test(id)) return fallback();
  const parts = id.split(MODE_INHERIT_SEPARATOR);
  if (parts.length === 1) return readModeFile(dir, id) ?? fallback();
  // One level of inheritance only: `a--b--c` is not a mode.
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return fallback();
  const parent = readModeFile(dir, parts[0]!);
  if (parent === null) return fallback();
  const child = readModeFile(dir, id);
  return child === null ? parent : deepMerge(parent, child);
}

/**
 * Learning type (lower-cased id) → glyph of a mode object: `work_emoji`, else `emoji`. Entries
 * without an id or with neither glyph are skipped (they render as the unknown glyph). No
 * `learning_types` list → empty map.
 */
export function glyphsFromMode(mode: Json): Map<string, string> {
  const out = new Map<string, string>();
  const types = mode['learning_types'];
  if (!Array.isArray(types)) return out;
  for (const t of types) {
    if (!isObject(t) || typeof t['id'] !== 'string' || t['id'].trim() === '') continue;
    const work = t['work_emoji'];
    const emoji = t['emoji'];
    const glyph = typeof work === 'string' && work !== '' ? work : typeof emoji === 'string' && emoji !== '' ? emoji : null;
    if (glyph !== null) out.set(t['id'].trim().toLowerCase(), glyph);
  }
  return out;
}

/**
 * Glyph map of the active mode (resolveModeId) from `opts.modesDir` or the bundled modes dir.
 * Never throws: any failure (no mode file at all, bad JSON, unreadable file) → an empty map, so
 * every glyph renders as `·`.
 */
export function loadGlyphs(opts: LoadGlyphsOptions): Map<string, string> {
  try {
    const dir = opts.modesDir !== null && opts.modesDir.trim() !== '' ? opts.modesDir : bundledModesDir();
    return glyphsFromMode(loadMode(dir, resolveModeId(opts)));
  } catch {
    return new Map();
  }
}
