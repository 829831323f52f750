/**
 * Where recall's hooks are wired on this machine, for `recall status`: each harness's user and
 * project hook files, the events in them whose hooks run recall, and the Claude Code plugin.
 * Reads only; a file that cannot be read or parsed is reported, never fatal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { targets } from './install.js';
import { staleLaunch } from './stable-launcher.js';
import { HARNESSES, isRecallHookCommand, type Harness } from './harness-config.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface HookWiring {
  harness: Harness;
  scope: 'user' | 'project';
  file: string;
  /** Events whose hooks run recall. */
  events: string[];
  /** Why the file could not be read, if it could not. */
  problem?: string;
  /** Why the recall its hooks run cannot run any more (an install moved, updated or removed), if so. */
  stale?: string;
}

/** The launch.mjs paths recall's hook commands in a hooks file run (a plugin's `${...}` variable form is not a path). */
export function launchPaths(json: unknown): string[] {
  const hooks = (json as { hooks?: unknown } | null)?.hooks;
  if (!hooks || typeof hooks !== 'object') return [];
  const out = new Set<string>();
  for (const list of Object.values(hooks as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    for (const g of list) {
      const x = g as { hooks?: unknown; command?: unknown; bash?: unknown };
      const commands = Array.isArray(x?.hooks) ? (x.hooks as { command?: unknown }[]).map((h) => h?.command) : [x?.command, x?.bash];
      for (const c of commands) {
        if (!isRecallHookCommand(c)) continue;
        // `[VAR=... ]node <launch.mjs> hook NAME`, or `sh <hook.sh> <launch.mjs> hook NAME`
        // (harness-config.ts hookCommand; both forms, whichever hook an older install gave which).
        // (A quote in a single-quoted path is written '\'' by shellQuote.)
        const m = /(?:\bnode|\bhook\.sh['"]?)\s+(?:'((?:[^']|'\\'')*)'|"([^"]*)"|(\S+))\s+hook\s/.exec(String(c));
        const p = m ? (m[1] ?? m[2] ?? m[3])!.replace(/'\\''/g, "'") : '';
        if (p.endsWith('launch.mjs') && !p.includes('${')) out.add(p);
      }
    }
  }
  return [...out];
}

/** Events whose handlers run recall, in a harness's hooks file (Claude/Codex groups or Copilot entries). */
export function recallEvents(json: unknown): string[] {
  const hooks = (json as { hooks?: unknown } | null)?.hooks;
  if (!hooks || typeof hooks !== 'object') return [];
  const out: string[] = [];
  for (const [event, list] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    const commands = list.flatMap((g) => {
      const x = g as { hooks?: unknown; command?: unknown; bash?: unknown };
      return Array.isArray(x?.hooks) ? (x.hooks as { command?: unknown }[]).map((h) => h?.command) : [x?.command, x?.bash];
    });
    if (commands.some(isRecallHookCommand)) out.push(event);
  }
  return out;
}

/** Recall's hook wiring in each harness's user and project files. */
export function hookWiring(env: Env, cwd: string): HookWiring[] {
  const out: HookWiring[] = [];
  for (const harness of HARNESSES) {
    for (const scope of ['user', 'project'] as const) {
      const file = targets({ harness, scope, env, cwd }).hooks;
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue; // no such file: nothing wired there
      }
      try {
        const json = JSON.parse(text) as unknown;
        const stale = launchPaths(json)
          .map(staleLaunch)
          .find((why) => why !== null);
        out.push({ harness, scope, file, events: recallEvents(json), ...(stale ? { stale } : {}) });
      } catch (err) {
        out.push({ harness, scope, file, events: [], problem: `not valid JSON (${(err as Error).message.split('\n')[0]})` });
      }
    }
  }
  return out;
}

/** True when the recall plugin is installed in Claude Code (its installed_plugins.json lists it). */
export function claudePluginInstalled(env: Env): boolean {
  const home = env['HOME'] ?? '';
  const config = env['CLAUDE_CONFIG_DIR'] ? path.resolve(env['CLAUDE_CONFIG_DIR']) : path.join(home, '.claude');
  try {
    const plugins = JSON.parse(fs.readFileSync(path.join(config, 'plugins', 'installed_plugins.json'), 'utf8')) as {
      plugins?: Record<string, unknown>;
    };
    return Object.keys(plugins.plugins ?? {}).some((k) => /^recall@/.test(k));
  } catch {
    return false;
  }
}
