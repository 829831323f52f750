/**
 * The launcher `recall hooks install` points a harness's hooks (and its MCP server) at: a small
 * script in recall's state dir (`<state>/launcher/scripts/launch.mjs`, with `install.json` naming
 * the recall install it runs), instead of the install's own folder. A folder an install came from
 * may go away: the Claude Code plugin lives in a versioned cache folder
 * (`~/.claude/plugins/cache/recall/recall/0.1.0`) that an update replaces and an uninstall removes,
 * and a clone may be moved. Hooks pointing there would exit 1 with a Node MODULE_NOT_FOUND stack.
 *
 * The launcher runs the install's own scripts/launch.mjs when it is there; else, for a plugin cache
 * folder, the newest version folder beside it (a plugin update); else it answers a hook with one
 * valid empty envelope and exit 0, and leaves the reason and the command that fixes it in
 * `<state>/last-event.json` and `<state>/logs/<hook>.log`, where `recall status` and `trace` look.
 * `recall status` reports such wiring as stale (wiring-status.ts).
 *
 * The launcher is plain JavaScript written out of this template, with the hook events it needs for
 * the empty envelope embedded: it must run when nothing else of recall is left.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_TABLE } from '../hook-table.js';
import { emptyEnvelope } from '../../sinks/hook-envelope.js';
import { resolveStateDir } from '../../core/state-dir.js';
import type { FileChange } from './install.js';
import { installRoot } from './harness-config.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The folder of the stable launcher: `<state dir>/launcher` (it holds scripts/launch.mjs, like an install). */
export function launcherDir(env: Env, home: string): string {
  return path.join(resolveStateDir(home, env['REFLECT_STATE_DIR']), 'launcher');
}

/** The launcher's record of the install it runs. */
export const LAUNCHER_RECORD = 'install.json';

/**
 * The launcher's text; __EVENTS__ (hook name → event, for the empty envelope), __ENVELOPE__ (the
 * text of emptyEnvelope: one empty envelope for every script) and __RECORD__ are filled in by
 * launcherText.
 */
const LAUNCHER_TEMPLATE = `// recall's stable hook launcher, written by \`recall hooks install\`; rewritten by each install.
// Runs the recall install named in install.json beside this folder; when that install is gone (a
// Claude Code plugin updated or uninstalled, a clone moved), the newest version folder beside it, else
// a hook answers one valid empty envelope and exits 0, leaving the reason in the state dir.
// Plain JavaScript with no imports but node's own: it must run when nothing else of recall is left.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const EVENTS = __EVENTS__;
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [kind, name] = process.argv.slice(2);

function recorded() {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(here, __RECORD__), 'utf8'));
    return typeof r.root === 'string' ? r.root : '';
  } catch {
    return '';
  }
}

/**
 * The install to run: the recorded one, unless it is a plugin cache folder Claude Code marked
 * orphaned (.orphaned_at: replaced by an update or uninstalled, deleted later) and a version beside it
 * is not; else the newest version folder beside a plugin cache folder.
 */
function installToRun(root) {
  const entry = (dir) => path.join(dir, 'scripts', 'launch.mjs');
  const orphaned = (dir) => fs.existsSync(path.join(dir, '.orphaned_at'));
  const cache = /[\\/]plugins[\\/]cache[\\/]/.test(root);
  if (root && fs.existsSync(entry(root)) && (!cache || !orphaned(root))) return root;
  if (!root || !cache) return null;
  try {
    const parent = path.dirname(root);
    const versions = fs
      .readdirSync(parent)
      .map((v) => path.join(parent, v))
      .filter((d) => fs.existsSync(entry(d)))
      .sort((a, b) => orphaned(a) - orphaned(b) || fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
    return versions[0] ?? null;
  } catch {
    return null;
  }
}

// emptyEnvelope of sinks/hook-envelope.ts, its text written in by launcherText.
__ENVELOPE__
function emptyEnvelope() {
  return emptyEnvelopeOf(process.env.REFLECT_HARNESS, EVENTS[name]);
}

function leaveReason(detail) {
  try {
    const home = process.env.HOME || '';
    const raw = (process.env.REFLECT_STATE_DIR ?? '').trim();
    const state = raw ? path.resolve(home, raw === '~' ? '.' : raw.startsWith('~/') ? raw.slice(2) : raw) : path.join(home, '.reflect');
    fs.mkdirSync(path.join(state, 'logs'), { recursive: true, mode: 0o700 });
    const ts = new Date().toISOString();
    fs.appendFileSync(path.join(state, 'logs', (name || 'launcher') + '.log'), '[' + ts + '] launch: ' + detail + '\\n', { mode: 0o600 });
    const file = path.join(state, 'last-event.json');
    fs.writeFileSync(file + '.' + process.pid + '.tmp', JSON.stringify({ event: 'error', hook: name, kind: 'launch', detail, ts }), { mode: 0o600 });
    fs.renameSync(file + '.' + process.pid + '.tmp', file);
  } catch {
    /* best effort: the envelope matters more */
  }
}

const root = recorded();
const target = installToRun(root);
if (target) {
  await import(pathToFileURL(path.join(target, 'scripts', 'launch.mjs')).href);
} else {
  const harness = (process.env.REFLECT_HARNESS ?? 'claude').trim().toLowerCase() || 'claude';
  const why = 'the recall install these hooks run is gone (' + (root || 'no install recorded') + '); rewire them with \`recall hooks install --harness ' + harness + '\` from a working recall, or remove them with \`recall hooks uninstall --harness ' + harness + '\`';
  if (kind === 'hook') {
    process.stdout.write(emptyEnvelope());
    leaveReason(why);
  } else {
    process.stderr.write('recall: ' + why + '\\n');
    process.exitCode = 1;
  }
}
`;

/** The launcher script, with the hook name → event table embedded. */
export function launcherText(): string {
  const events = Object.fromEntries(HOOK_TABLE.map((h) => [h.name, h.event]));
  return LAUNCHER_TEMPLATE.replace('__EVENTS__', () => JSON.stringify(events))
    .replace('__RECORD__', () => JSON.stringify(LAUNCHER_RECORD))
    .replace('__ENVELOPE__', () => `const emptyEnvelopeOf = ${emptyEnvelope.toString()};`);
}

/**
 * The launcher files as install changes: the script and the record of `root` and of the files
 * `wired` to the launcher (launcher-users.ts; both files recall's own, no backups).
 */
export function launcherChanges(root: string, env: Env, home: string, wired: readonly string[] = []): FileChange[] {
  const dir = launcherDir(env, home);
  const read = (f: string): string | null => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return null;
    }
  };
  const change = (file: string, after: string, summary: string): FileChange => {
    const before = read(file);
    return { file, before, after, summary: before === after ? [] : [summary], backup: false };
  };
  // The commands of the hooks with a keeper start scripts/hook.sh beside launch.mjs (harness-config.ts
  // hookCommand): a copy of the install's, else of the one this code came with.
  const hookSh = read(path.join(root, 'scripts', 'hook.sh')) ?? ownHookScript();
  return [
    change(path.join(dir, 'scripts', 'launch.mjs'), launcherText(), `+ stable launcher (survives a move or update of ${root})`),
    ...(hookSh === null ? [] : [change(path.join(dir, 'scripts', 'hook.sh'), hookSh, '+ its hook deadline keeper (scripts/hook.sh)')]),
    change(path.join(dir, LAUNCHER_RECORD), `${JSON.stringify({ root, wired }, null, 2)}\n`, `+ runs the recall install at ${root}`),
  ];
}

/** scripts/hook.sh of the install this code runs from, or null. */
function ownHookScript(): string | null {
  try {
    return fs.readFileSync(path.join(installRoot(), 'scripts', 'hook.sh'), 'utf8');
  } catch {
    return null;
  }
}

/** The install root a launcher record names ('' when none), or null when the record cannot be read. */
function recordedRoot(record: string): string | null {
  try {
    return String((JSON.parse(fs.readFileSync(record, 'utf8')) as { root?: unknown }).root ?? '');
  } catch {
    return null;
  }
}

/**
 * Why a hook command's recall cannot run any more, or null while it can: the launch.mjs it names is
 * missing, or it is the stable launcher and neither its recorded install nor (for a plugin cache
 * folder) a version beside it is left. `launch` is the launch.mjs path the command names.
 */
export function staleLaunch(launch: string): string | null {
  if (!fs.existsSync(launch)) return `${launch} is gone`;
  const dir = path.dirname(path.dirname(launch));
  const record = path.join(dir, LAUNCHER_RECORD);
  if (!fs.existsSync(record)) return null;
  const root = recordedRoot(record);
  if (root === null) return `${record} cannot be read`;
  const entry = (d: string): string => path.join(d, 'scripts', 'launch.mjs');
  if (root && fs.existsSync(entry(root))) return null;
  if (/[\\/]plugins[\\/]cache[\\/]/.test(root)) {
    try {
      const parent = path.dirname(root);
      if (fs.readdirSync(parent).some((v) => fs.existsSync(entry(path.join(parent, v))))) return null;
    } catch {
      /* the plugin folder is gone too */
    }
  }
  return `the recall install it runs (${root || 'none recorded'}) is gone`;
}
