/**
 * Copilot CLI, as a user installs recall: `recall hooks install --harness copilot --mcp`, each hook of
 * ~/.copilot/hooks/recall.json run on Copilot's hook JSON, the skill and MCP server as Copilot lists them.
 */
import path from 'node:path';
import { bin, check, env, home, mcpCheck, readJson, run, runHookCommand, runSkillCommands, section } from './common.js';

/** The hook JSON Copilot sends for each event. */
function copilotStdin(project: string, transcript: string): Record<string, Record<string, unknown>> {
  return {
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
    // Copilot sends the tool's arguments as JSON text.
    preToolUse: { sessionId: 'p-1', timestamp: Date.now(), cwd: project, toolName: 'bash', toolArgs: '{"command":"pip install asyncpg"}' },
  };
}

/** Hooks installed by `recall hooks install`, each run as Copilot's hook file declares it. */
function runCopilotHooks(recall: string, project: string, transcript: string): void {
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
    'Copilot hook file: version 1, sessionStart / userPromptTransformed / subagentStart / preToolUse',
    cpHooks['version'] === 1 &&
      Object.keys(cpHooks['hooks']).sort().join() === 'preToolUse,sessionStart,subagentStart,userPromptTransformed',
  );
  const cpStdin = copilotStdin(project, transcript);
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
}

export async function verifyCopilot(recall: string, project: string, transcript: string): Promise<void> {
  section('Copilot');
  runCopilotHooks(recall, project, transcript);
  const cpSkill = run(bin('copilot'), ['skill', 'list'], { env: env(), cwd: project });
  check('copilot skill list shows recall (personal)', /recall - Look up the user's prior learnings/.test(cpSkill.stdout));
  runSkillCommands(
    'Copilot skill (through the stable launcher)',
    path.join(home, '.copilot', 'skills', 'recall', 'SKILL.md'),
    null,
    project,
  );
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
}
