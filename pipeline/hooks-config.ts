/**
 * Hook wiring for each harness, with this install's absolute paths (resolved from where the code
 * runs, never hard-coded): `recall hooks config --harness claude|codex|copilot`.
 * - claude: a settings.json `hooks` block (the Claude Code plugin in .claude-plugin/ + hooks/hooks.json
 *   uses ${CLAUDE_PLUGIN_ROOT} instead);
 * - codex: the same shape, with REFLECT_HARNESS=codex;
 * - copilot: Copilot CLI's `{"version": 1, "hooks": {...}}` with camelCase events and REFLECT_HARNESS=copilot.
 *   Copilot ignores the output of userPromptSubmitted, so recall reaches the model through
 *   sessionStart and subagentStart there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The install root: the folder holding bin/recall and dist/. */
export function installRoot(moduleUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (let i = 0; i < 4; i += 1) {
    if (fs.existsSync(path.join(dir, 'bin', 'recall')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find the recall install folder (bin/recall) from this module');
}

const HOOKS = [
  { name: 'session-start', claude: 'SessionStart', copilot: 'sessionStart', timeout: 30 },
  { name: 'user-prompt-submit', claude: 'UserPromptSubmit', copilot: 'userPromptSubmitted', timeout: 30 },
  { name: 'subagent-start', claude: 'SubagentStart', copilot: 'subagentStart', timeout: 10 },
] as const;

const shellQuote = (s: string): string => (/^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function hooksConfig(harness: 'claude' | 'codex' | 'copilot', root: string = installRoot()): string {
  const script = (name: string): string => shellQuote(path.join(root, 'dist', 'hooks', `${name}.js`));
  if (harness === 'copilot') {
    const hooks = Object.fromEntries(
      HOOKS.map((h) => [h.copilot, [{ type: 'command', bash: `node ${script(h.name)}`, env: { REFLECT_HARNESS: 'copilot' }, timeoutSec: h.timeout }]]),
    );
    return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
  }
  const prefix = harness === 'codex' ? 'REFLECT_HARNESS=codex ' : '';
  const hooks = Object.fromEntries(HOOKS.map((h) => [h.claude, [{ hooks: [{ type: 'command', command: `${prefix}node ${script(h.name)}`, timeout: h.timeout }] }]]));
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}
