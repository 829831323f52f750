/**
 * Where recall's hooks are wired on this machine, for `recall status`: each harness's user and
 * project hook files, the events in them whose hooks run recall, and the Claude Code plugin.
 * Reads only; a file that cannot be read or parsed is reported, never fatal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { targets } from './install.js';
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
        out.push({ harness, scope, file, events: recallEvents(JSON.parse(text)) });
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
