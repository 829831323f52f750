/**
 * Claude Code, as a user installs recall: validate the payload (a checkout of the release branch), add
 * the release branch as a marketplace (`<owner>/<repo>#plugin`), install the plugin, then run every
 * hook command as the installed hooks.json declares it, the skill's commands, and the MCP server as
 * plugin.json declares it.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  base,
  bin,
  check,
  env,
  home,
  mcpCheck,
  readJson,
  run,
  runHookCommand,
  runSkillCommands,
  section,
  skip,
  type SpawnSyncReturns,
} from './common.js';

type HookGroups = Record<string, { hooks: { command: string }[] }[]>;

/** Validate, add the marketplace, install; the installed copy's root, or null when it is missing. */
function installPlugin(payload: string, market: string): string | null {
  section('Claude Code: plugin from the release branch');
  const claude = (...a: string[]): SpawnSyncReturns<string> & { ms: number } => run(bin('claude'), a, { env: env(), cwd: base });
  const validate = claude('plugin', 'validate', '--profile', 'directory', payload);
  if (/unknown option '--profile'/.test(validate.stderr)) {
    // Claude Code before the directory profile (2.1.197 has none): its validate reads the plugin
    // manifest itself, and lists no parts; the hooks, skill and MCP server are run after install.
    const manifest = claude('plugin', 'validate', path.join(payload, '.claude-plugin', 'plugin.json'));
    check('claude plugin validate <payload>/.claude-plugin/plugin.json', manifest.status === 0, manifest.stdout.trim().split('\n').pop());
    skip('validate lists the hooks, the skill, the MCP server and bin', 'this Claude Code has no `validate --profile`');
  } else {
    check(
      'claude plugin validate --profile directory <payload>',
      validate.status === 0,
      (validate.stdout.match(/✔[^\n]*|✘[^\n]*/g) ?? []).join(' | '),
    );
    const provides = (validate.stdout.match(/❯ (hooks|skills|mcpServers|bin):[^\n]*/g) ?? []).map((l) => l.replace('❯ ', ''));
    check(
      'validate lists the hooks, the skill, the MCP server and bin',
      ['hooks:', 'skills: recall:recall', 'mcpServers: recall', 'bin: recall'].every((p) => provides.some((l) => l.startsWith(p))),
      provides.length ? `${provides.length} parts` : validate.stdout.slice(0, 500),
    );
  }
  const marketValidate = claude('plugin', 'validate', payload);
  check('claude plugin validate <payload> (its marketplace)', marketValidate.status === 0, marketValidate.stdout.trim().split('\n').pop());
  const mAdd = claude('plugin', 'marketplace', 'add', `${market}#plugin`);
  check(`claude plugin marketplace add ${market}#plugin`, mAdd.status === 0, mAdd.stdout.trim().split('\n').pop() ?? '');
  const install = claude('plugin', 'install', 'recall@recall');
  check(
    'claude plugin install recall@recall (within 20 s)',
    install.status === 0 && install.ms <= 20_000,
    `${(install.ms / 1000).toFixed(1)} s`,
  );
  const installed = readJson(path.join(home, '.claude', 'plugins', 'installed_plugins.json'))['plugins']['recall@recall']?.[0]?.[
    'installPath'
  ] as string | undefined;
  if (!check('installed copy found', !!installed && fs.existsSync(installed), installed ?? 'no installPath')) return null;
  return installed!;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.lstatSync(p).size;
  }
  return n;
}

/** The skill's token cost as `claude plugin details` projects it, and nothing installed or built at install. */
function installedCopyChecks(root: string): void {
  const mb = dirBytes(root) / 1048576;
  check(
    'installed copy is the payload: bundles present, no node_modules installed, at most 60 MB',
    fs.existsSync(path.join(root, 'dist', 'bundle')) && !fs.existsSync(path.join(root, 'node_modules')) && mb <= 60,
    `${mb.toFixed(1)} MB`,
  );
  const details = run(bin('claude'), ['plugin', 'details', 'recall@recall'], { env: env(), cwd: base });
  const cost = details.stdout
    .split('\n')
    .filter((l) => /Always-on:|^\s*recall\s+~/.test(l))
    .map((l) => l.trim().replace(/\s+/g, ' '));
  check(
    'claude plugin details recall@recall (skill token cost: always-on, on-invoke)',
    details.status === 0 && cost.length > 0,
    cost.join(' | '),
  );
}

/** The hook JSON Claude Code sends for each event. */
function claudeStdin(project: string, transcript: string): Record<string, Record<string, unknown>> {
  return {
    SessionStart: { session_id: 'v-1', transcript_path: transcript, cwd: project, hook_event_name: 'SessionStart', source: 'startup' },
    UserPromptSubmit: {
      session_id: 'v-1',
      transcript_path: transcript,
      cwd: project,
      hook_event_name: 'UserPromptSubmit',
      permission_mode: 'default',
      prompt: 'the postgres connection pool is exhausted in pytest again',
    },
    SubagentStart: {
      session_id: 'v-1',
      transcript_path: transcript,
      cwd: project,
      hook_event_name: 'SubagentStart',
      agent_id: 'a1b2c3',
      agent_type: 'code-reviewer',
    },
    // A tool call a note of the example KB names (its pip cache-mount note), as the tool-call hook needs.
    PreToolUse: {
      session_id: 'v-1',
      transcript_path: transcript,
      cwd: project,
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'pip install asyncpg' },
    },
  };
}

/** Every hook command of the installed hooks.json, first run (builds the bundle) and warm. */
function runClaudeHooks(root: string, project: string, transcript: string): void {
  const hooksFile = readJson(path.join(root, 'hooks', 'hooks.json'))['hooks'] as HookGroups;
  const claudeEnv = env({ CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: project });
  const stdinFor = claudeStdin(project, transcript);
  const timings: string[] = [];
  for (const [event, groups] of Object.entries(hooksFile)) {
    const command = groups[0]!.hooks[0]!.command;
    const ms = runHookCommand({
      label: `Claude ${event} (first run)`,
      command,
      stdin: stdinFor[event]!,
      env: claudeEnv,
      event,
      context: (o) => o['hookSpecificOutput']?.['additionalContext'],
    });
    timings.push(`${event} ${Math.round(ms)} ms`);
  }
  const again = Object.entries(hooksFile).map(([event, groups]) =>
    runHookCommand({
      label: `Claude ${event} (warm)`,
      command: groups[0]!.hooks[0]!.command,
      stdin: { ...stdinFor[event]!, session_id: 'v-2' },
      env: claudeEnv,
      event,
      context: (o) => o['hookSpecificOutput']?.['additionalContext'],
    }),
  );
  process.stdout.write(
    `     start-up, spawn to envelope: first ${timings.join(', ')}; warm ${again.map((m) => `${Math.round(m)} ms`).join(', ')}\n`,
  );
}

/** The whole Claude Code check; the installed copy's root (the payload Codex and Copilot then use). */
export async function verifyClaude(payload: string, market: string, project: string, transcript: string): Promise<string> {
  const root = installPlugin(payload, market);
  if (!root) process.exit(1);
  installedCopyChecks(root);
  runClaudeHooks(root, project, transcript);
  const driver = run('node', [path.join(root, 'scripts', 'launch.mjs'), 'recall', 'index'], { env: env(), cwd: project });
  check('installed copy indexes the KB', driver.status === 0, driver.stdout.split('\n')[0] ?? '');
  runSkillCommands(
    'Claude skill (bin/ on PATH, as the plugin provides)',
    path.join(root, 'skills', 'recall', 'SKILL.md'),
    path.join(root, 'bin'),
    project,
  );
  const manifest = readJson(path.join(root, '.claude-plugin', 'plugin.json'));
  const server = manifest['mcpServers']['recall'] as { command: string; args: string[] };
  await mcpCheck(
    'Claude plugin',
    server.command,
    server.args.map((a) => a.replace('${CLAUDE_PLUGIN_ROOT}', root)),
    { CLAUDE_PLUGIN_ROOT: root },
    project,
  );
  return root;
}
