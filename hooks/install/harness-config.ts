/**
 * How each harness runs recall's hooks: events, commands and timeouts, in one table. The plugin's
 * hooks/hooks.json, `recall hooks config` (print only) and `recall hooks install` all follow it (a
 * spec checks hooks/hooks.json against it).
 *
 * Commands start `scripts/launch.mjs` (the burst hooks through `scripts/hook.sh`, see hookCommand),
 * which builds the bundle on first use when the install has none, and answers with an empty envelope
 * if it cannot run, so a hook never fails the agent.
 * - claude: settings.json `hooks` groups; the Claude Code plugin uses ${CLAUDE_PLUGIN_ROOT} instead
 *   of this install's absolute path;
 * - codex: the same shape (Codex reads Claude-style hooks.json), with REFLECT_HARNESS=codex;
 * - copilot: `{"version": 1, "hooks": {...}}` with camelCase events, REFLECT_HARNESS=copilot, and the
 *   prompt hook on userPromptTransformed (Copilot ignores what userPromptSubmitted returns).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOOK_NAMES, HOOK_TABLE, hookRow, type HookName } from '../hook-table.js';

import type { Harness } from '../../sinks/hook-envelope.js';

export type { Harness };
export const HARNESSES: readonly Harness[] = ['claude', 'codex', 'copilot'];

/** The install root: the folder holding bin/recall and scripts/launch.mjs. */
export function installRoot(moduleUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (let i = 0; i < 4; i += 1) {
    if (fs.existsSync(path.join(dir, 'bin', 'recall')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find the recall install folder (bin/recall) from this module');
}

/**
 * The hooks and the harness-side timeouts (seconds) they are registered with: the hook table. Each
 * hook's own deadline (REFLECT_RECALL_TIMEOUT, REFLECT_SUBAGENT_RECALL_TIMEOUT) stays inside these.
 */
export const HOOK_WIRING = HOOK_TABLE;

export const shellQuote = (s: string): string => (/^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The assignments that start a hook's node without the user's CA bundle and keep it for the recall
 * server (RECALL_EXTRA_CA_CERTS, empty when the user has none: every reader takes empty as unset).
 */
export const CA_MOVE = 'RECALL_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS=';

/**
 * The shell command that runs hook `name` from the install at `root` (a shell-quoted path or
 * `"${VAR}"`), as its row's `keeper` column says (hooks/hook-table.ts):
 * - `sh <root>/scripts/hook.sh <root>/scripts/launch.mjs hook <name>` for the hooks that fire in
 *   bursts with a short deadline: the shell script starts node on launch.mjs and answers "nothing
 *   to add" itself when node cannot answer by the deadline (a loaded machine takes seconds to start
 *   node; the shell, a millisecond);
 * - `RECALL_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= node <root>/scripts/launch.mjs
 *   hook <name>` for the others: node alone, started without the CA bundle (node reads the file
 *   NODE_EXTRA_CA_CERTS names as it starts, ~35 ms for a system bundle, and ignores an empty value;
 *   a hook makes no TLS connection). The thin client gives it back to a recall server it starts
 *   (client/start-server.ts), as scripts/hook.sh does for its hooks.
 * Claude Code and Copilot run the command through bash or sh. Codex runs it through the user's own
 * login shell (`$SHELL -lc`): fish, csh or a profile with `set -u` would refuse or fail on the
 * assignments (csh has no `VAR=value command`, and `set -u` fails on an unset variable). So Codex's
 * command is `env REFLECT_HARNESS=codex node <root>/scripts/launch.mjs hook <name>`, which every
 * shell reads: its node loads a CA bundle the user set (~35 ms), and a server it starts gets the
 * bundle from that same environment.
 */
export function hookCommand(name: HookName, root: string, harness: Harness = 'claude', rootIsVariable = false): string {
  const script = (file: string): string => (rootIsVariable ? `"${root}/scripts/${file}"` : shellQuote(path.join(root, 'scripts', file)));
  const prefix = harness === 'codex' ? 'env REFLECT_HARNESS=codex ' : '';
  if (hookRow(name).keeper) return `${prefix}sh ${script('hook.sh')} ${script('launch.mjs')} hook ${name}`;
  return `${prefix}${harness === 'codex' ? '' : `${CA_MOVE} `}node ${script('launch.mjs')} hook ${name}`;
}

/** `{"hooks": {...}}` for Claude Code settings and plugin hooks.json, and Codex hooks.json. */
export function claudeStyleHooks(root: string, harness: 'claude' | 'codex', rootIsVariable = false): { hooks: Record<string, unknown[]> } {
  return {
    hooks: Object.fromEntries(
      HOOK_WIRING.map((h) => [
        h.event,
        [
          {
            ...('matcher' in h ? { matcher: h.matcher } : {}),
            hooks: [{ type: 'command', command: hookCommand(h.name, root, harness, rootIsVariable), timeout: h.timeoutSec }],
          },
        ],
      ]),
    ),
  };
}

/** Copilot CLI's hook file for this install. */
export function copilotHooks(root: string): { version: 1; hooks: Record<string, unknown[]> } {
  return {
    version: 1,
    hooks: Object.fromEntries(
      HOOK_WIRING.map((h) => [
        h.copilotEvent,
        [
          {
            type: 'command',
            bash: hookCommand(h.name, root, 'copilot'),
            env: { REFLECT_HARNESS: 'copilot' },
            timeoutSec: h.timeoutSec,
            ...('copilotMatcher' in h ? { matcher: h.copilotMatcher } : {}),
          },
        ],
      ]),
    ),
  };
}

/** The print-only form (`recall hooks config`): the whole file to merge, as JSON. */
export function hooksConfig(harness: Harness, root: string = installRoot()): string {
  const body = harness === 'copilot' ? copilotHooks(root) : claudeStyleHooks(root, harness);
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** The MCP server command of this install: `node <root>/scripts/launch.mjs recall mcp`. */
export function mcpCommand(root: string): { command: string; args: string[] } {
  return { command: 'node', args: [path.join(root, 'scripts', 'launch.mjs'), 'recall', 'mcp'] };
}

const HOOK_ALTERNATIVES = HOOK_NAMES.join('|');
/** The forms a recall hook command has had: the launcher, the built entry scripts, the `recall hook` command. */
const RECALL_HOOK_COMMANDS = [
  new RegExp(`scripts/launch\\.mjs['"]?\\s+hook\\s+(${HOOK_ALTERNATIVES})\\b`),
  new RegExp(`dist/hooks/(${HOOK_ALTERNATIVES})\\.js\\b`),
  new RegExp(`\\brecall['"]?\\s+hook\\s+(${HOOK_ALTERNATIVES})\\b`),
];

/**
 * True for a hook command that runs recall (this install or any other copy, old or new form), so
 * install replaces it and uninstall removes it without touching anyone else's hooks.
 */
export function isRecallHookCommand(command: unknown): boolean {
  return typeof command === 'string' && RECALL_HOOK_COMMANDS.some((re) => re.test(command));
}
