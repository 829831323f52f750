/**
 * Codex, as a user installs recall: `recall hooks install --harness codex --mcp` from the installed
 * payload, each hook of ~/.codex/hooks.json run on Codex's hook JSON, the skill and MCP server as Codex
 * lists them, and the plugin added from the release branch's marketplace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bin, check, env, home, mcpCheck, readJson, run, runHookCommand, runSkillCommands, section } from './common.js';

type HookGroups = Record<string, { hooks: { command: string }[] }[]>;

/** The hook JSON Codex sends for each event. */
function codexStdin(project: string): Record<string, Record<string, unknown>> {
  return {
    SessionStart: {
      session_id: 'c-1',
      transcript_path: null,
      cwd: project,
      hook_event_name: 'SessionStart',
      model: 'gpt-5',
      permission_mode: 'default',
      source: 'startup',
    },
    UserPromptSubmit: {
      session_id: 'c-1',
      turn_id: 't1',
      transcript_path: null,
      cwd: project,
      hook_event_name: 'UserPromptSubmit',
      model: 'gpt-5',
      permission_mode: 'default',
      prompt: 'the postgres connection pool is exhausted in pytest again',
    },
    SubagentStart: {
      session_id: 'c-1',
      turn_id: 't1',
      transcript_path: null,
      cwd: project,
      hook_event_name: 'SubagentStart',
      model: 'gpt-5',
      permission_mode: 'default',
      agent_id: 'x1',
      agent_type: 'pytest postgres pool reviewer',
    },
    PreToolUse: {
      session_id: 'c-1',
      turn_id: 't1',
      transcript_path: null,
      cwd: project,
      hook_event_name: 'PreToolUse',
      model: 'gpt-5',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'pip install asyncpg' },
    },
  };
}

/** Hooks installed by `recall hooks install`, each run as ~/.codex/hooks.json declares it. */
function runCodexHooks(recall: string, project: string): void {
  const codexInstall = run(recall, ['hooks', 'install', '--harness', 'codex', '--mcp'], { env: env(), cwd: project });
  check(
    'recall hooks install --harness codex --mcp',
    codexInstall.status === 0,
    codexInstall.stdout
      .split('\n')
      .filter((l) => /^(created|updated)/.test(l))
      .join('; '),
  );
  const codexHooks = readJson(path.join(home, '.codex', 'hooks.json'))['hooks'] as HookGroups;
  const stdin = codexStdin(project);
  for (const [event, groups] of Object.entries(codexHooks)) {
    runHookCommand({
      label: `Codex ${event}`,
      command: groups[0]!.hooks[0]!.command,
      stdin: stdin[event]!,
      env: env(),
      event,
      context: (o) => o['hookSpecificOutput']?.['additionalContext'],
    });
  }
}

/** The skill and the MCP server, as Codex itself lists them. */
async function codexSkillAndMcp(project: string): Promise<void> {
  const promptInput = run(bin('codex'), ['debug', 'prompt-input', 'hello'], { env: env(), cwd: project });
  check(
    'codex debug prompt-input lists the recall skill',
    /- recall: Look up the user's prior learnings/.test(promptInput.stdout),
    promptInput.status === 0 ? '' : promptInput.stderr.slice(0, 200),
  );
  runSkillCommands('Codex skill (through the stable launcher)', path.join(home, '.codex', 'skills', 'recall', 'SKILL.md'), null, project);
  const codexMcp = run(bin('codex'), ['mcp', 'list', '--json'], { env: env(), cwd: project });
  check('codex mcp list shows recall', /"recall"/.test(codexMcp.stdout), codexMcp.stdout.replace(/\s+/g, ' ').slice(0, 160));
  const toml = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8');
  const args = JSON.parse(/args = (\[.*\])/.exec(toml)![1]!) as string[];
  await mcpCheck('Codex config.toml', 'node', args, {}, project);
}

/** The Codex plugin from the release branch's marketplace, nothing installed in it, its hooks run. */
function codexPlugin(market: string, project: string): void {
  const cxAdd = run(bin('codex'), ['plugin', 'marketplace', 'add', market, '--ref', 'plugin'], { env: env() });
  const cxPlugin = run(bin('codex'), ['plugin', 'add', 'recall@recall'], { env: env() });
  const cxRoot = /Installed plugin root: (.*)/.exec(cxPlugin.stdout)?.[1]?.trim();
  check(
    `codex plugin marketplace add ${market} --ref plugin; codex plugin add recall@recall`,
    cxAdd.status === 0 && cxPlugin.status === 0 && !!cxRoot,
    cxRoot ? `${((cxAdd.ms + cxPlugin.ms) / 1000).toFixed(1)} s, ${cxRoot}` : (cxAdd.stderr + cxPlugin.stderr).slice(0, 300),
  );
  if (!cxRoot) return;
  const pluginHooks = readJson(path.join(cxRoot, 'hooks', 'hooks.json'))['hooks'] as HookGroups;
  for (const [event, groups] of Object.entries(pluginHooks)) {
    runHookCommand({
      label: `Codex plugin ${event}`,
      command: groups[0]!.hooks[0]!.command,
      stdin: { ...codexStdin(project)[event]!, session_id: 'c-2' },
      env: env({ CLAUDE_PLUGIN_ROOT: cxRoot, PLUGIN_ROOT: cxRoot }),
      event,
      context: (o) => o['hookSpecificOutput']?.['additionalContext'],
    });
  }
}

export async function verifyCodex(recall: string, market: string, project: string): Promise<void> {
  section('Codex');
  runCodexHooks(recall, project);
  await codexSkillAndMcp(project);
  codexPlugin(market, project);
}
