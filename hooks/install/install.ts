/**
 * `recall hooks install|uninstall --harness claude|codex|copilot [--scope user|project] [--mcp]
 * [--no-skill] [--dry-run]`: merge recall into a harness's real configuration files.
 *
 * - Merges, never replaces: other hooks, other MCP servers and every other setting stay as they are;
 *   recall's own earlier entries (any copy, any older command form) are replaced, so a second install
 *   changes nothing and an uninstall removes exactly what an install added.
 * - Copies a file it changes to `<file>.recall-backup-<time>` first; refuses (one line, nothing
 *   written) when an existing file cannot be parsed.
 * - Returns what it would change or changed, file by file; `--dry-run` writes nothing.
 *
 * Files, by harness and scope (user | project = the current folder):
 *   claude  hooks ~/.claude/settings.json | .claude/settings.local.json   (a machine's paths: not shared)
 *           skill ~/.claude/skills/recall/ | .claude/skills/recall/       mcp ~/.claude.json | .mcp.json
 *   codex   hooks $CODEX_HOME/hooks.json | .codex/hooks.json              (Codex asks the user to trust new hooks)
 *           skill $CODEX_HOME/skills/recall/ | .agents/skills/recall/     mcp $CODEX_HOME/config.toml | .codex/config.toml
 *   copilot hooks ~/.copilot/hooks/recall.json | .github/hooks/recall.json
 *           skill ~/.copilot/skills/recall/ | .github/skills/recall/      mcp ~/.copilot/mcp-config.json | .github/mcp.json
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { UsageError } from '../../core/errors.js';
import { claudeStyleHooks, copilotHooks, isRecallHookCommand, mcpCommand, type Harness } from './harness-config.js';
import { codexPluginSkip } from './codex-plugin.js';
import { skillText } from './skill-text.js';

export type Scope = 'user' | 'project';

export interface InstallOptions {
  harness: Harness;
  scope: Scope;
  /** Also register `recall mcp` as an MCP server. */
  mcp: boolean;
  /** Also install the recall skill (default). */
  skill: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The recall install the hooks run (folder with scripts/launch.mjs). */
  root: string;
  /** The folder whose scripts/launch.mjs the commands run, if not `root`: the CLI's stable launcher (stable-launcher.ts). */
  commandRoot?: string;
}

export interface FileChange {
  file: string;
  /** Text before (null: file absent) and after (null: delete the file). */
  before: string | null;
  after: string | null;
  /** Human summary lines: "+ SessionStart: node … (timeout 30 s)". */
  summary: string[];
  /** Copy the file aside before changing it (not for recall's own generated skill file). */
  backup?: boolean;
  skippedBecause?: string; // why nothing was planned (the harness's own recall plugin runs the hooks)
}

type Json = Record<string, unknown>;

function home(env: InstallOptions['env']): string {
  return env['HOME'] || os.homedir();
}

function codexHome(env: InstallOptions['env']): string {
  return env['CODEX_HOME'] ? path.resolve(env['CODEX_HOME']) : path.join(home(env), '.codex');
}

/** Where each piece goes for a harness and scope. */
export function targets(o: Pick<InstallOptions, 'harness' | 'scope' | 'env' | 'cwd'>): { hooks: string; skillDir: string; mcp: string } {
  const h = home(o.env);
  const user = o.scope === 'user';
  switch (o.harness) {
    case 'claude': {
      const config = o.env['CLAUDE_CONFIG_DIR'] ? path.resolve(o.env['CLAUDE_CONFIG_DIR']) : path.join(h, '.claude');
      return user
        ? { hooks: path.join(config, 'settings.json'), skillDir: path.join(config, 'skills', 'recall'), mcp: path.join(h, '.claude.json') }
        : {
            hooks: path.join(o.cwd, '.claude', 'settings.local.json'),
            skillDir: path.join(o.cwd, '.claude', 'skills', 'recall'),
            mcp: path.join(o.cwd, '.mcp.json'),
          };
    }
    case 'codex': {
      const ch = codexHome(o.env);
      return user
        ? { hooks: path.join(ch, 'hooks.json'), skillDir: path.join(ch, 'skills', 'recall'), mcp: path.join(ch, 'config.toml') }
        : {
            hooks: path.join(o.cwd, '.codex', 'hooks.json'),
            skillDir: path.join(o.cwd, '.agents', 'skills', 'recall'),
            mcp: path.join(o.cwd, '.codex', 'config.toml'),
          };
    }
    case 'copilot':
      return user
        ? {
            hooks: path.join(h, '.copilot', 'hooks', 'recall.json'),
            skillDir: path.join(h, '.copilot', 'skills', 'recall'),
            mcp: path.join(h, '.copilot', 'mcp-config.json'),
          }
        : {
            hooks: path.join(o.cwd, '.github', 'hooks', 'recall.json'),
            skillDir: path.join(o.cwd, '.github', 'skills', 'recall'),
            mcp: path.join(o.cwd, '.github', 'mcp.json'),
          };
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function readJson(file: string, text: string | null): Json {
  if (text === null || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON (${(err as Error).message}); fix or move it, nothing was changed`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${file} does not hold a JSON object; nothing was changed`);
  return v as Json;
}

const pretty = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

/** Handler entries inside Claude-style matcher groups, minus recall's; empty groups dropped. */
function withoutRecallGroups(groups: unknown): { kept: unknown[]; removed: number } {
  if (!Array.isArray(groups)) return { kept: [], removed: 0 };
  let removed = 0;
  const kept: unknown[] = [];
  for (const g of groups) {
    const handlers = (g as { hooks?: unknown })?.hooks;
    if (!Array.isArray(handlers)) {
      kept.push(g);
      continue;
    }
    const rest = handlers.filter((hd) => !isRecallHookCommand((hd as { command?: unknown })?.command));
    removed += handlers.length - rest.length;
    if (rest.length) kept.push({ ...(g as Json), hooks: rest });
  }
  return { kept, removed };
}

/** Copilot handler entries minus recall's. */
function withoutRecallEntries(entries: unknown): { kept: unknown[]; removed: number } {
  if (!Array.isArray(entries)) return { kept: [], removed: 0 };
  const kept = entries.filter((e) => {
    const x = e as { bash?: unknown; command?: unknown; powershell?: unknown };
    return !(isRecallHookCommand(x?.bash) || isRecallHookCommand(x?.command) || isRecallHookCommand(x?.powershell));
  });
  return { kept, removed: entries.length - kept.length };
}

function hooksChange(o: InstallOptions, file: string, install: boolean): FileChange {
  const before = readText(file);
  const doc = readJson(file, before);
  const summary: string[] = [];
  const raw = doc['hooks'];
  if (raw !== undefined && (!raw || typeof raw !== 'object' || Array.isArray(raw))) {
    throw new UsageError(`${file}: "hooks" is not an object; nothing was changed`);
  }
  const hooks: Json = raw ? { ...(raw as Json) } : {};
  const root = o.commandRoot ?? o.root;
  const ours = o.harness === 'copilot' ? copilotHooks(root).hooks : claudeStyleHooks(root, o.harness).hooks;
  const events = new Set([...Object.keys(hooks), ...Object.keys(ours)]);
  for (const event of events) {
    const { kept, removed } = o.harness === 'copilot' ? withoutRecallEntries(hooks[event]) : withoutRecallGroups(hooks[event]);
    const add = install ? (ours[event] ?? []) : [];
    if (removed === 0 && add.length === 0) continue;
    const next = [...kept, ...add];
    if (next.length) hooks[event] = next;
    else delete hooks[event];
    for (const a of add) {
      const handler =
        o.harness === 'copilot'
          ? (a as { bash: string; timeoutSec: number })
          : (a as { hooks: { command: string; timeout: number }[] }).hooks[0]!;
      const cmd = 'bash' in handler ? handler.bash : handler.command;
      const t = 'timeoutSec' in handler ? handler.timeoutSec : handler.timeout;
      summary.push(`+ ${event}: ${cmd} (timeout ${t} s)`);
    }
    if (removed) summary.push(`- ${event}: ${removed} earlier recall hook${removed > 1 ? 's' : ''}`);
  }
  const nextDoc: Json = { ...doc };
  if (o.harness === 'copilot') nextDoc['version'] = doc['version'] ?? 1;
  if (Object.keys(hooks).length) nextDoc['hooks'] = hooks;
  else delete nextDoc['hooks'];
  // A file recall created and now empties (its own recall.json, an empty settings file) goes away.
  const emptied = !install && Object.keys(nextDoc).every((k) => k === 'version');
  const after = emptied && o.harness === 'copilot' ? null : pretty(nextDoc);
  return finalize(file, before, after, summary);
}

/** No change at all when the merged text is what is there (a repeated install). */
function finalize(file: string, before: string | null, after: string | null, summary: string[]): FileChange {
  const same = before === after || (before !== null && after !== null && safeEqualJson(before, after));
  return { file, before, after: same ? before : after, summary: same ? [] : summary };
}

function safeEqualJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

const SKILL_MARK = 'name: recall';

function skillChange(o: InstallOptions, dir: string, install: boolean): FileChange {
  const file = path.join(dir, 'SKILL.md');
  const before = readText(file);
  if (before !== null && !before.includes(SKILL_MARK)) {
    throw new UsageError(`${file} exists and is not recall's skill; move it away first, nothing was changed`);
  }
  const after = install ? skillText(o.root, false, o.commandRoot) : null;
  const summary = install ? [`+ skill recall (${before === null ? 'new' : 'updated'})`] : before !== null ? ['- skill recall'] : [];
  return { ...finalize(file, before, after, summary), backup: false };
}

/** `[mcp_servers.recall]` in Codex's config.toml, edited as text so the user's comments and layout survive. */
function codexMcpChange(o: InstallOptions, file: string, install: boolean): FileChange {
  const before = readText(file);
  const text = before ?? '';
  try {
    parseToml(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid TOML (${(err as Error).message.split('\n')[0]}); nothing was changed`);
  }
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\s*\[\s*mcp_servers\s*\.\s*("recall"|recall)\s*\]\s*(#.*)?$/.test(l));
  let rest = lines;
  if (start >= 0) {
    let end = start + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end += 1;
    // Our own comment line just above the table goes with it.
    const from = start > 0 && lines[start - 1]!.startsWith('# recall MCP server') ? start - 1 : start;
    rest = [...lines.slice(0, from), ...lines.slice(end)];
  }
  let body = rest.join('\n').replace(/\n{3,}$/, '\n\n');
  const { command, args } = mcpCommand(o.commandRoot ?? o.root);
  if (install) {
    if (body.trim() && !body.endsWith('\n')) body += '\n';
    body += `${body.trim() ? '\n' : ''}# recall MCP server (added by \`recall hooks install --mcp\`)\n[mcp_servers.recall]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n`;
  }
  const parsed = parseToml(body) as { mcp_servers?: { recall?: unknown } };
  if (install && !parsed.mcp_servers?.recall) throw new UsageError(`could not add [mcp_servers.recall] to ${file}; nothing was changed`);
  const after = !install && before === null ? null : body;
  const summary = install ? [`+ MCP server recall: ${command} ${args.join(' ')}`] : start >= 0 ? ['- MCP server recall'] : [];
  return finalize(file, before, after, summary);
}

function jsonMcpChange(o: InstallOptions, file: string, install: boolean): FileChange {
  const before = readText(file);
  const doc = readJson(file, before);
  const servers: Json = doc['mcpServers'] && typeof doc['mcpServers'] === 'object' ? { ...(doc['mcpServers'] as Json) } : {};
  const had = 'recall' in servers;
  const { command, args } = mcpCommand(o.commandRoot ?? o.root);
  if (install)
    servers['recall'] = o.harness === 'copilot' ? { type: 'local', command, args, tools: ['*'] } : { type: 'stdio', command, args };
  else delete servers['recall'];
  const next: Json = { ...doc, mcpServers: servers };
  if (!Object.keys(servers).length) delete next['mcpServers'];
  const after = !install && before === null ? null : pretty(next);
  const summary = install ? [`+ MCP server recall: ${command} ${args.join(' ')}`] : had ? ['- MCP server recall'] : [];
  return finalize(file, before, after, summary);
}

export function planInstall(o: InstallOptions, install = true): FileChange[] {
  const t = targets(o);
  // Codex's own plugin already runs recall's hooks: a second wiring would run recall twice per prompt.
  const skip = install && o.harness === 'codex' ? codexPluginSkip(o.env, t.hooks, readText(t.hooks)) : null;
  if (skip) return [skip];
  const changes = [hooksChange(o, t.hooks, install)];
  if (o.skill || !install) {
    const skill = skillChange(o, t.skillDir, install && o.skill);
    if (install || skill.before !== null) changes.push(skill);
  }
  if (o.mcp || !install) {
    const mcp = o.harness === 'codex' ? codexMcpChange(o, t.mcp, install && o.mcp) : jsonMcpChange(o, t.mcp, install && o.mcp);
    if (install || mcp.summary.length) changes.push(mcp);
  }
  return changes;
}

export { applyChanges, describeChanges } from './apply.js';
