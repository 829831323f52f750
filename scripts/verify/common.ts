/**
 * What every harness check of `npm run verify:harnesses` shares: the throwaway HOME and temp dir, a
 * process runner, the ok/FAIL line printer, the seeded KB, project and transcript, and the checks
 * that run a hook command, a skill's commands and an MCP server as a harness would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

export type { SpawnSyncReturns };
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** A parsed JSON document, navigated freely by the checks (a wrong path simply fails the check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CLIS = ['@anthropic-ai/claude-code@2.1.328', '@openai/codex@0.169.0', '@github/copilot@1.0.102'];

export const argv = process.argv.slice(2);
export const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
export const keep = argv.includes('--keep');

let failures = 0;
/** How many checks failed so far. */
export const failureCount = (): number => failures;
export function check(label: string, ok: boolean, detail = ''): boolean {
  if (!ok) failures += 1;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `: ${detail}` : ''}\n`);
  return ok;
}
/** A check this client cannot run (an older CLI lacks the command): printed, not counted as passed or failed. */
export function skip(label: string, why: string): void {
  process.stdout.write(`skip ${label}: ${why}\n`);
}
export const section = (title: string): void => void process.stdout.write(`\n== ${title}\n`);

export function run(
  cmd: string,
  args: string[],
  o: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeout?: number } = {},
): SpawnSyncReturns<string> & { ms: number } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: o.timeout ?? 300_000, maxBuffer: 64 * 1024 * 1024, ...o });
  return Object.assign(r, { ms: performance.now() - t0 });
}

export const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-verify-'));
export const home = path.join(base, 'home');
fs.mkdirSync(home);
export const prefix = opt('prefix') ? path.resolve(opt('prefix')!) : path.join(base, 'harness');
export const bin = (name: string): string => path.join(prefix, 'node_modules', '.bin', name);
/** Each harness sees only the throwaway HOME (and our PATH for node, git, npm). */
export const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  LANG: 'C.UTF-8',
  TMPDIR: base,
  ...extra,
});

/** The learnings KB a user would have: the example KB as the default pooled KB (~/.learnings). */
export function seedKb(): void {
  fs.cpSync(path.join(repo, 'examples', 'kb'), path.join(home, '.learnings'), { recursive: true });
}

/** A project the agent works in: a git repo whose recent commits are about the postgres pool. */
export function seedProject(): string {
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
export function seedTranscript(): string {
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

export interface HookRun {
  label: string;
  command: string;
  stdin: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** Where the learnings must appear in the parsed envelope. */
  context: (out: Json) => unknown;
  event?: string;
}

/** Run one hook command through the shell, as a harness does; check one valid envelope with learnings. */
export function runHookCommand(h: HookRun, shell = 'sh'): number {
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
export function runSkillCommands(label: string, skillFile: string, pathPrefix: string | null, project: string): void {
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

export async function mcpCheck(label: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv, cwd: string): Promise<void> {
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
    // The write tools (save, supersede, forget) came with the KB-writing MCP surface.
    const toolsOk = tools.join(',') === 'explain,forget,hydrate,index,save,search,supersede,timeline';
    const found = /\[lrn-/.test(text);
    check(
      `${label}: MCP server starts, lists its tools, search answers`,
      toolsOk && found,
      `${Math.round(performance.now() - t0)} ms; tools ${tools.join(', ')}${found ? '' : `; search answered: ${text.slice(0, 200)}`}`,
    );
  } catch (err) {
    check(`${label}: MCP server`, false, (err as Error).message);
  } finally {
    await client.close().catch(() => undefined);
  }
}

export function readJson(file: string): Json {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
}
