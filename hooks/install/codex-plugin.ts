/**
 * Codex's own recall plugin (`codex plugin add recall@recall`) runs recall's hooks already; hooks
 * wired by `recall hooks install --harness codex` beside it would run recall a second time on every
 * prompt. Checked against Codex 0.171.0: `codex plugin add` records `[plugins."recall@<marketplace>"]`
 * with `enabled = true` in $CODEX_HOME/config.toml and copies the plugin to
 * $CODEX_HOME/plugins/cache/; `codex plugin remove` deletes both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { isRecallHookCommand } from './harness-config.js';
import type { FileChange } from './install.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The recall plugin in Codex's own plugin list (`codex plugin add recall@recall` records
 * `[plugins."recall@<marketplace>"]` in $CODEX_HOME/config.toml, enabled unless `enabled = false`):
 * a description naming it, or null when it is not installed or the file cannot be read.
 */
export function codexPluginInstalled(env: Env): string | null {
  const codexHome = env['CODEX_HOME'] ? path.resolve(env['CODEX_HOME']) : path.join(env['HOME'] || os.homedir(), '.codex');
  const file = path.join(codexHome, 'config.toml');
  try {
    const plugins = (parseToml(fs.readFileSync(file, 'utf8')) as { plugins?: Record<string, { enabled?: unknown }> }).plugins ?? {};
    const key = Object.keys(plugins).find((k) => /^recall@/.test(k) && plugins[k]?.enabled !== false);
    return key ? `Codex's plugin ${key} (${file})` : null;
  } catch {
    return null;
  }
}

/** Whether a Claude-style hooks file's text has a hook that runs recall (false for text that is not JSON). */
function runsRecall(text: string): boolean {
  try {
    const hooks = (JSON.parse(text) as { hooks?: Record<string, unknown> }).hooks ?? {};
    return Object.values(hooks).some(
      (groups) =>
        Array.isArray(groups) &&
        groups.some((g) => ((g as { hooks?: { command?: unknown }[] })?.hooks ?? []).some((h) => isRecallHookCommand(h?.command))),
    );
  } catch {
    return false;
  }
}

/**
 * With the plugin installed, the install of Codex hooks is a no-op: the hooks file unchanged, and
 * why (naming a second wiring already in the file); null without the plugin.
 */
export function codexPluginSkip(env: Env, hooksFile: string, before: string | null): FileChange | null {
  const plugin = codexPluginInstalled(env);
  if (!plugin) return null;
  const wired = before !== null && runsRecall(before);
  return { file: hooksFile, before, after: before, summary: [], skippedBecause: plugin + (wired ? `; ${hooksFile} runs recall too` : '') };
}
