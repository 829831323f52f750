/**
 * The optional config file, `recall.toml`: every setting recall reads from the environment can be
 * written there once instead. It is read at the process edge (the CLI and each hook) and turned
 * into environment values *under* the real environment, so precedence stays flags > environment >
 * config file > defaults, and every module keeps reading one place (pipeline/config/config.ts).
 *
 * Where: `$RECALL_CONFIG`, else `<state dir>/recall.toml` (`$REFLECT_STATE_DIR`, default
 * `~/.reflect`), else `$XDG_CONFIG_HOME/recall/recall.toml` (default `~/.config/recall/recall.toml`);
 * the first that exists is read. Keys are the `key` of each setting in core/settings/settings.ts (README, "Settings"). A bad
 * file, an unknown key or a value of the wrong type is a warning, never a failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as SmolToml from 'smol-toml';
import { resolveStateDir } from '../../core/state-dir.js';
import { SETTINGS, type Setting } from '../../core/settings/index.js';

// The TOML parser is loaded only when a config file exists: most processes (every hook) have none
// and should not pay for evaluating it.
const loadCjs = createRequire(import.meta.url);
const parse = (text: string): Record<string, unknown> => (loadCjs('smol-toml') as typeof SmolToml).parse(text);

type Env = Readonly<Record<string, string | undefined>>;

/** A setting as recall.toml knows it: the one list of settings (core/settings/settings.ts). */
export type Knob = Setting;
/** Every setting recall.toml may hold: the same list the environment reader and the README use. */
export const KNOBS: readonly Knob[] = SETTINGS;

const BY_KEY = new Map(KNOBS.map((k) => [k.key, k]));

/** Largest config file read (a settings file is a few hundred bytes). */
const MAX_CONFIG_BYTES = 256 * 1024;

/** The config file this environment reads, or null when there is none. */
export function configFilePath(env: Env): string | null {
  const home = env['HOME'] || os.homedir();
  const expand = (p: string): string => (p.startsWith('~/') ? path.join(home, p.slice(2)) : p);
  const candidates = [
    env['RECALL_CONFIG'] ? expand(env['RECALL_CONFIG']) : null,
    path.join(resolveStateDir(home, env['REFLECT_STATE_DIR']), 'recall.toml'),
    path.join(expand(env['XDG_CONFIG_HOME'] || path.join(home, '.config')), 'recall', 'recall.toml'),
  ];
  return candidates.find((f): f is string => f !== null && fs.existsSync(f)) ?? null;
}

/** Settings of a config file's text as environment values, and one warning per problem. */
export function parseConfigText(text: string, file: string): { values: Record<string, string>; warnings: string[] } {
  const values: Record<string, string> = {};
  const warnings: string[] = [];
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    return { values, warnings: [`${file}: not valid TOML (${(err as Error).message.split('\n')[0]}); ignored`] };
  }
  for (const [key, v] of Object.entries(doc)) {
    // `kb = [...]` is the list form of `kb`: the KBs read together, as `kbs`.
    const knob = BY_KEY.get(key === 'kb' && Array.isArray(v) ? 'kbs' : key);
    if (!knob) {
      warnings.push(`${file}: unknown setting ${JSON.stringify(key)}; ignored`);
      continue;
    }
    if (knob.list && Array.isArray(v)) {
      if (!v.every((x): x is string => typeof x === 'string' && x.trim() !== '' && !x.includes(path.delimiter))) {
        warnings.push(`${file}: ${key} must be a list of paths (strings without ${JSON.stringify(path.delimiter)}); ignored`);
        continue;
      }
      values[knob.env] = v.map((x) => x.trim()).join(path.delimiter);
      continue;
    }
    const ok =
      knob.type === 'number'
        ? typeof v === 'number' || typeof v === 'bigint'
        : knob.type === 'boolean'
          ? typeof v === 'boolean'
          : typeof v === 'string';
    if (!ok) {
      warnings.push(`${file}: ${key} must be a ${knob.type} (got ${JSON.stringify(String(v))}); ignored`);
      continue;
    }
    values[knob.env] = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  }
  return { values, warnings };
}

/** The environment with the config file's settings under it (a set, non-empty variable wins). */
export function withConfigFile(env: Env): { env: Record<string, string | undefined>; file: string | null; warnings: string[] } {
  let file: string | null = null;
  try {
    file = configFilePath(env);
    if (!file) return { env: { ...env }, file: null, warnings: [] };
    // Only a regular, small file is read: a FIFO or a device there must not hang a hook.
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_CONFIG_BYTES)
      return { env: { ...env }, file, warnings: [`${file}: not a regular file of at most ${MAX_CONFIG_BYTES} bytes; ignored`] };
    const { values, warnings } = parseConfigText(fs.readFileSync(file, 'utf8'), file);
    const merged: Record<string, string | undefined> = { ...env };
    for (const [k, v] of Object.entries(values)) if (merged[k] === undefined || merged[k].trim() === '') merged[k] = v;
    return { env: merged, file, warnings };
  } catch (err) {
    return {
      env: { ...env },
      file,
      warnings: [`${file ?? 'config file'}: cannot read (${(err as Error).message.split('\n')[0]}); ignored`],
    };
  }
}
