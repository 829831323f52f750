/**
 * `npm run verify:harnesses [-- --prefix DIR] [--keep]`: recall inside the real harness CLIs, the way a
 * user installs it, offline (only the npm registry) and in a throwaway HOME. Not part of `npm test`:
 * it installs the three harness CLIs (~400 MB) into a temp prefix (or reuses `--prefix DIR`).
 *
 * 1. Claude Code: `claude plugin validate --profile directory` on a clean clone; a marketplace added
 *    from that clone; `claude plugin install`; every hook command run exactly as the installed
 *    hooks.json declares it (CLAUDE_PLUGIN_ROOT = the installed copy) on real hook JSON; every command
 *    of the installed skill run with the plugin's bin/ on PATH; the plugin's MCP server started as
 *    plugin.json declares it and queried; `claude plugin details` for the skill's token cost.
 * 2. Codex and Copilot: `recall hooks install --harness codex|copilot --mcp` from a clone installed
 *    with `npm ci --ignore-scripts` (no native build, as a plugin manager does), then each hook command
 *    of the written files run as declared on that harness's hook JSON; the skill and MCP server as the
 *    CLIs list them (`codex debug prompt-input`, `codex mcp list`, `copilot skill list`, `copilot mcp get`);
 *    the Codex plugin added from the clone's marketplace.
 * 3. The README's install lines are the commands this script ran.
 *
 * Every check prints one line (ok / FAIL); the script exits 1 if any failed. A script, not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** A parsed JSON document, navigated freely by the checks (a wrong path simply fails the check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIS = ['@anthropic-ai/claude-code@2.1.328', '@openai/codex@0.169.0', '@github/copilot@1.0.102'];

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const keep = argv.includes('--keep');

let failures = 0;
function check(label: string, ok: boolean, detail = ''): boolean {
  if (!ok) failures += 1;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `: ${detail}` : ''}\n`);
  return ok;
}
const section = (title: string): void => void process.stdout.write(`\n== ${title}\n`);

function run(
  cmd: string,
  args: string[],
  o: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeout?: number } = {},
): SpawnSyncReturns<string> & { ms: number } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: o.timeout ?? 300_000, maxBuffer: 64 * 1024 * 1024, ...o });
  return Object.assign(r, { ms: performance.now() - t0 });
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-verify-'));
const home = path.join(base, 'home');
fs.mkdirSync(home);
const prefix = opt('prefix') ? path.resolve(opt('prefix')!) : path.join(base, 'harness');
const bin = (name: string): string => path.join(prefix, 'node_modules', '.bin', name);
/** Each harness sees only the throwaway HOME (and our PATH for node, git, npm). */
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  LANG: 'C.UTF-8',
  TMPDIR: base,
  ...extra,
});

/** The learnings KB a user would have: the example KB as the default pooled KB (~/.learnings). */
function seedKb(): void {
  fs.cpSync(path.join(repo, 'examples', 'kb'), path.join(home, '.learnings'), { recursive: true });
}

/** A project the agent works in: a git repo whose recent commits are about the postgres pool. */
function seedProject(): string {
  const dir = path.join(base, 'billing-svc');
  fs.mkdirSync(dir);
  const git = (...a: string[]): void =>
    void run('git', a, {
      cwd: dir,
      env: env({ GIT_AUTHOR_NAME: 'v', GIT_AUTHOR_EMAIL: 'v@x', GIT_COMMITTER_NAME: 'v', GIT_COMMITTER_EMAIL: 'v@x' }),
    });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'conftest.py'), 'engine = None\n');
  git('add', '.');
  git('commit', '-q', '-m', 'pytest postgres pool exhausted: share one engine per session');
  return dir;
}

/** A Claude Code transcript whose last tool call starts a subagent. */
function seedTranscript(): string {
  const file = path.join(base, 'transcript.jsonl');
  const call = {
    type: 'tool_use',
    name: 'Task',
    input: {
      subagent_type: 'code-reviewer',
      description: 'review pool fixture',
      prompt: 'Review the pytest postgres connection pool fixture for exhaustion',
    },
  };
  fs.writeFileSync(file, `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [call] } })}\n`);
  return file;
}

interface HookRun {
  label: string;
  command: string;
  stdin: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** Where the learnings must appear in the parsed envelope. */
  context: (out: Json) => unknown;
  event?: string;
}

/** Run one hook command through the shell, as a harness does; check one valid envelope with learnings. */
function runHookCommand(h: HookRun, shell = 'sh'): number {
  const r = run(shell, ['-c', h.command], {
    env: h.env,
    input: JSON.stringify(h.stdin),
    cwd: String(h.stdin['cwd'] ?? base),
    timeout: 60_000,
  });
  const lines = (r.stdout ?? '').trim().split('\n').filter(Boolean);
  let parsed: Json | null;
  try {
    parsed = lines.length === 1 ? (JSON.parse(lines[0]!) as Json) : null;
  } catch {
    parsed = null;
  }
  const ctx = parsed ? h.context(parsed) : null;
  const ids = typeof ctx === 'string' ? [...ctx.matchAll(/\*\*\[(lrn-[a-z0-9-]+)\]\*\*/g)].map((m) => m[1]) : [];
  const eventOk = !h.event || parsed?.['hookSpecificOutput']?.['hookEventName'] === h.event;
  check(
    `${h.label}: exit 0, one JSON envelope${h.event ? ` (${h.event})` : ''}, learnings from the KB`,
    r.status === 0 && parsed !== null && eventOk && ids.length > 0,
    `${Math.round(r.ms)} ms, ${ids.length} learnings${ids[0] ? ` (${ids[0]}…)` : ''}${r.status !== 0 || !parsed ? `; rc=${r.status} stdout=${JSON.stringify((r.stdout ?? '').slice(0, 200))} stderr=${JSON.stringify((r.stderr ?? '').slice(0, 300))}` : ''}`,
  );
  return r.ms;
}

/** Every command of an installed SKILL.md, as the agent would run it. */
function runSkillCommands(label: string, skillFile: string, pathPrefix: string | null, project: string): void {
  const text = fs.readFileSync(skillFile, 'utf8');
  const cmds = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  let ids: string[] = [];
  let ok = 0;
  for (const raw of cmds) {
    let i = 0;
    const cmd = raw.replace(/<ID>/g, () => ids[i++] ?? 'missing');
    const r = run('bash', ['-c', cmd], {
      env: env(pathPrefix ? { PATH: `${pathPrefix}:${process.env['PATH']}` } : {}),
      cwd: project,
      timeout: 60_000,
    });
    if (cmd.includes('stages index')) {
      try {
        ids = (JSON.parse(r.stdout) as { results: { id: string }[] }).results.map((x) => x.id);
      } catch {
        ids = [];
      }
    }
    const good = r.status === 0 && r.stdout.trim().length > 0 && !/"found": false/.test(r.stdout);
    if (good) ok += 1;
    else check(`${label}: \`${cmd}\``, false, `rc=${r.status} ${r.stderr.slice(0, 300)}`);
  }
  check(
    `${label}: all ${cmds.length} commands of the installed SKILL.md run and answer`,
    ok === cmds.length && cmds.length > 0,
    `${ok}/${cmds.length}`,
  );
}

async function mcpCheck(label: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  const client = new Client({ name: 'verify-harnesses', version: '1.0.0' });
  try {
    const t0 = performance.now();
    await client.connect(new StdioClientTransport({ command, args, env: env(extraEnv) as Record<string, string>, cwd, stderr: 'ignore' }));
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const res = (await client.callTool({
      name: 'search',
      arguments: { query: 'postgres connection pool exhausted in pytest', limit: 3 },
    })) as { content: { text: string }[] };
    const text = res.content.map((c) => c.text).join('');
    check(
      `${label}: MCP server starts, lists its tools, search answers`,
      tools.join(',') === 'explain,hydrate,index,search,timeline' && /\[lrn-/.test(text),
      `${Math.round(performance.now() - t0)} ms; tools ${tools.join(', ')}`,
    );
  } catch (err) {
    check(`${label}: MCP server`, false, (err as Error).message);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function readJson(file: string): Json {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
}

async function main(): Promise<void> {
  process.stdout.write(`recall verify:harnesses — node ${process.version}, temp ${base}\n`);
  const dirty = run('git', ['status', '--porcelain'], { cwd: repo }).stdout.trim();
  if (dirty) process.stdout.write('note: the work tree has uncommitted changes; this checks the last commit (a clean clone)\n');

  section('harness CLIs');
  if (!fs.existsSync(bin('claude')) || !fs.existsSync(bin('codex')) || !fs.existsSync(bin('copilot'))) {
    const r = run('npm', ['i', '--no-audit', '--no-fund', '--prefix', prefix, ...CLIS], { env: { ...process.env }, timeout: 900_000 });
    if (!check(`npm i ${CLIS.join(' ')}`, r.status === 0, `${Math.round(r.ms / 1000)} s into ${prefix}`)) {
      process.stdout.write(r.stderr.slice(-2000));
      process.exit(1);
    }
  }
  for (const [name, args] of [
    ['claude', ['--version']],
    ['codex', ['--version']],
    ['copilot', ['--version']],
  ] as const) {
    const r = run(bin(name), [...args], { env: env() });
    check(`${name} --version`, r.status === 0, (r.stdout.split('\n').find((l) => /\d+\.\d+/.test(l)) ?? '').trim());
  }

  const clone = path.join(base, 'recall');
  run('git', ['clone', '-q', repo, clone]);
  seedKb();
  const project = seedProject();
  const transcript = seedTranscript();

  // ------------------------------------------------------------------------------------------
  section('Claude Code: plugin from the marketplace');
  const claude = (...a: string[]): SpawnSyncReturns<string> & { ms: number } => run(bin('claude'), a, { env: env(), cwd: base });
  const validate = claude('plugin', 'validate', '--profile', 'directory', clone);
  check(
    'claude plugin validate --profile directory <clone>',
    validate.status === 0,
    (validate.stdout.match(/✔[^\n]*|✘[^\n]*/g) ?? []).join(' | '),
  );
  const provides = (validate.stdout.match(/❯ (hooks|skills|mcpServers|bin):[^\n]*/g) ?? []).map((l) => l.replace('❯ ', ''));
  check(
    'validate lists the hooks, the skill, the MCP server and bin',
    ['hooks:', 'skills: recall:recall', 'mcpServers: recall', 'bin: recall'].every((p) => provides.some((l) => l.startsWith(p))),
    provides.length ? `${provides.length} parts` : validate.stdout.slice(0, 500),
  );
  const mAdd = claude('plugin', 'marketplace', 'add', clone);
  check('claude plugin marketplace add <clone>', mAdd.status === 0, mAdd.stdout.trim().split('\n').pop() ?? '');
  const install = claude('plugin', 'install', 'recall@recall');
  check(
    'claude plugin install recall@recall',
    install.status === 0,
    `${(install.ms / 1000).toFixed(1)} s (copy + npm ci --ignore-scripts by Claude Code)`,
  );
  const installed = readJson(path.join(home, '.claude', 'plugins', 'installed_plugins.json'))['plugins']['recall@recall']?.[0]?.[
    'installPath'
  ] as string | undefined;
  if (!check('installed copy found', !!installed && fs.existsSync(installed), installed ?? 'no installPath')) process.exit(1);
  const root = installed!;
  check(
    'installed copy has no dist/ and no built native addon (nothing was built at install)',
    !fs.existsSync(path.join(root, 'dist')) && !fs.existsSync(path.join(root, 'node_modules', 'better-sqlite3', 'build')),
  );
  const details = claude('plugin', 'details', 'recall@recall');
  const cost = details.stdout
    .split('\n')
    .filter((l) => /Always-on:|^\s*recall\s+~/.test(l))
    .map((l) => l.trim().replace(/\s+/g, ' '));
  check(
    'claude plugin details recall@recall (skill token cost: always-on, on-invoke)',
    details.status === 0 && cost.length > 0,
    cost.join(' | '),
  );

  const hooksFile = readJson(path.join(root, 'hooks', 'hooks.json'))['hooks'] as Record<string, { hooks: { command: string }[] }[]>;
  const claudeEnv = env({ CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: project });
  const stdinFor: Record<string, Record<string, unknown>> = {
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
  };
  const timings: string[] = [];
  for (const [event, groups] of Object.entries(hooksFile)) {
    const command = groups[0]!.hooks[0]!.command;
    const ms = runHookCommand({
      label: `Claude ${event} (${timings.length === 0 ? 'first run: builds the bundle' : 'bundle built'})`,
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

  // ------------------------------------------------------------------------------------------
  section('a recall install for Codex and Copilot (clone + npm ci --ignore-scripts)');
  const cli = path.join(base, 'recall-cli');
  run('git', ['clone', '-q', repo, cli]);
  const ci = run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: cli,
    env: { ...process.env, HOME: home },
    timeout: 900_000,
  });
  check('npm ci --ignore-scripts', ci.status === 0, `${Math.round(ci.ms / 1000)} s`);
  const recall = path.join(cli, 'bin', 'recall');

  section('Codex');
  const codexInstall = run(recall, ['hooks', 'install', '--harness', 'codex', '--mcp'], { env: env(), cwd: project });
  check(
    'recall hooks install --harness codex --mcp',
    codexInstall.status === 0,
    codexInstall.stdout
      .split('\n')
      .filter((l) => /^(created|updated)/.test(l))
      .join('; '),
  );
  const codexHooks = readJson(path.join(home, '.codex', 'hooks.json'))['hooks'] as Record<string, { hooks: { command: string }[] }[]>;
  const codexStdin: Record<string, Record<string, unknown>> = {
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
  };
  for (const [event, groups] of Object.entries(codexHooks)) {
    runHookCommand({
      label: `Codex ${event}`,
      command: groups[0]!.hooks[0]!.command,
      stdin: codexStdin[event]!,
      env: env(),
      event,
      context: (o) => o['hookSpecificOutput']?.['additionalContext'],
    });
  }
  const promptInput = run(bin('codex'), ['debug', 'prompt-input', 'hello'], { env: env(), cwd: project });
  check(
    'codex debug prompt-input lists the recall skill',
    /- recall: Look up the user's prior learnings/.test(promptInput.stdout),
    promptInput.status === 0 ? '' : promptInput.stderr.slice(0, 200),
  );
  runSkillCommands('Codex skill (absolute bin path)', path.join(home, '.codex', 'skills', 'recall', 'SKILL.md'), null, project);
  const codexMcp = run(bin('codex'), ['mcp', 'list', '--json'], { env: env(), cwd: project });
  check('codex mcp list shows recall', /"recall"/.test(codexMcp.stdout), codexMcp.stdout.replace(/\s+/g, ' ').slice(0, 160));
  const toml = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8');
  const args = JSON.parse(/args = (\[.*\])/.exec(toml)![1]!) as string[];
  await mcpCheck('Codex config.toml', 'node', args, {}, project);

  const cxAdd = run(bin('codex'), ['plugin', 'marketplace', 'add', clone], { env: env() });
  const cxPlugin = run(bin('codex'), ['plugin', 'add', 'recall@recall'], { env: env() });
  const cxRoot = /Installed plugin root: (.*)/.exec(cxPlugin.stdout)?.[1]?.trim();
  check(
    'codex plugin marketplace add <clone>; codex plugin add recall@recall',
    cxAdd.status === 0 && cxPlugin.status === 0 && !!cxRoot,
    cxRoot ?? cxPlugin.stderr.slice(0, 200),
  );
  if (cxRoot) {
    // Codex copies the plugin but installs no dependencies: the documented one-time step.
    const deps = run('npm', ['ci', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund'], {
      cwd: cxRoot,
      env: { ...process.env, HOME: home },
      timeout: 900_000,
    });
    check('Codex plugin: npm ci --ignore-scripts --omit=dev in the installed copy', deps.status === 0, `${Math.round(deps.ms / 1000)} s`);
    const pluginHooks = readJson(path.join(cxRoot, 'hooks', 'hooks.json'))['hooks'] as Record<string, { hooks: { command: string }[] }[]>;
    for (const [event, groups] of Object.entries(pluginHooks)) {
      runHookCommand({
        label: `Codex plugin ${event}`,
        command: groups[0]!.hooks[0]!.command,
        stdin: { ...codexStdin[event]!, session_id: 'c-2' },
        env: env({ CLAUDE_PLUGIN_ROOT: cxRoot, PLUGIN_ROOT: cxRoot }),
        event,
        context: (o) => o['hookSpecificOutput']?.['additionalContext'],
      });
    }
  }

  section('Copilot');
  const cpInstall = run(recall, ['hooks', 'install', '--harness', 'copilot', '--mcp'], { env: env(), cwd: project });
  check(
    'recall hooks install --harness copilot --mcp',
    cpInstall.status === 0,
    cpInstall.stdout
      .split('\n')
      .filter((l) => /^(created|updated)/.test(l))
      .join('; '),
  );
  const cpHooks = readJson(path.join(home, '.copilot', 'hooks', 'recall.json'));
  check(
    'Copilot hook file: version 1, sessionStart / userPromptTransformed / subagentStart',
    cpHooks['version'] === 1 && Object.keys(cpHooks['hooks']).sort().join() === 'sessionStart,subagentStart,userPromptTransformed',
  );
  const cpStdin: Record<string, Record<string, unknown>> = {
    sessionStart: { sessionId: 'p-1', timestamp: Date.now(), cwd: project, source: 'new' },
    userPromptTransformed: {
      sessionId: 'p-1',
      timestamp: Date.now(),
      cwd: project,
      prompt: 'the postgres connection pool is exhausted in pytest again',
      transformedPrompt: '<current_datetime>now</current_datetime>\nthe postgres connection pool is exhausted in pytest again',
    },
    subagentStart: {
      sessionId: 'p-1',
      timestamp: Date.now(),
      cwd: project,
      transcriptPath: transcript,
      agentName: 'pool-reviewer',
      agentDisplayName: 'Pool reviewer',
      agentDescription: 'Reviews pytest postgres connection pool fixtures',
    },
  };
  for (const [event, entries] of Object.entries(cpHooks['hooks'] as Record<string, { bash: string; env: Record<string, string> }[]>)) {
    const e = entries[0]!;
    runHookCommand(
      {
        label: `Copilot ${event}`,
        command: e.bash,
        stdin: cpStdin[event]!,
        env: env(e.env),
        context: (o) => (event === 'userPromptTransformed' ? o['modifiedTransformedPrompt'] : o['additionalContext']),
      },
      'bash',
    );
  }
  const cpSkill = run(bin('copilot'), ['skill', 'list'], { env: env(), cwd: project });
  check('copilot skill list shows recall (personal)', /recall - Look up the user's prior learnings/.test(cpSkill.stdout));
  runSkillCommands('Copilot skill (absolute bin path)', path.join(home, '.copilot', 'skills', 'recall', 'SKILL.md'), null, project);
  const cpMcp = run(bin('copilot'), ['mcp', 'get', 'recall'], { env: env(), cwd: project });
  check(
    'copilot mcp get recall',
    /Status: Enabled/.test(cpMcp.stdout) && /recall mcp/.test(cpMcp.stdout),
    cpMcp.stdout
      .split('\n')
      .find((l) => l.includes('Command:'))
      ?.trim() ?? '',
  );
  const cpServer = readJson(path.join(home, '.copilot', 'mcp-config.json'))['mcpServers']['recall'] as { command: string; args: string[] };
  await mcpCheck('Copilot mcp-config.json', cpServer.command, cpServer.args, {}, project);

  // ------------------------------------------------------------------------------------------
  section('README');
  const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
  for (const line of [
    'claude plugin marketplace add <path or owner/repo of this repository>',
    'claude plugin install recall@recall',
    'recall hooks install --harness codex',
    'recall hooks install --harness copilot',
    'codex plugin marketplace add <path or owner/repo of this repository>',
    'codex plugin add recall@recall',
    'npm ci --ignore-scripts --omit=dev',
  ]) {
    check(`README has \`${line}\``, readme.includes(line));
  }

  process.stdout.write(`\n${failures === 0 ? 'all checks passed' : `${failures} check(s) FAILED`}\n`);
  if (!keep) fs.rmSync(base, { recursive: true, force: true });
  else process.stdout.write(`kept ${base}\n`);
  process.exit(failures === 0 ? 0 : 1);
}

await main();
