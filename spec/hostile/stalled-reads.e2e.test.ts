/**
 * A project whose files stop answering (a hung NFS or FUSE mount): a read there neither fails nor
 * ends. Through the warm recall server, that project's hooks still answer in their deadline (with
 * nothing from the project, and the stall in the hook's log), and every other project's hooks are
 * still answered by the server meanwhile, with their notes.
 *
 * No FUSE mount is made here: the server runs with the test seam `--test-stall-reads DIR`
 * (io/read-stall.ts), which blocks the reading thread for good on any read of the project's files,
 * exactly as read(2) on a hung mount does. Before recall kept those reads off the serving thread,
 * the first such read wedged the whole server.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { type ChildProcess } from 'node:child_process';
import {
  expectEnvelope,
  hostileCase,
  prompt,
  recallLog,
  repo,
  runHook,
  serverAnswers,
  serverStatus,
  startServer,
  stopServer,
  waitFor,
  type Case,
} from './helpers.js';
import { MAX_STUCK } from '../../server/project-probe.js';

let c: Case;
let server: ChildProcess | null = null;
afterEach(async () => {
  if (server) await stopServer(server, c.env);
  server = null;
  c?.cleanup();
});

/** The server's probe threads loaded (a loaded machine may take seconds to start them; a call before that is not read). */
async function probesReady(env: NodeJS.ProcessEnv): Promise<boolean> {
  const status = await serverStatus(env, 1000);
  // A server without probes (the code before them) has nothing to wait for.
  return status !== null && (status.probe === undefined || status.probe.ready >= 2);
}

/** One figure of the server's probe status. */
async function probeStat(env: NodeJS.ProcessEnv, key: 'stuck' | 'probed'): Promise<number | undefined> {
  return (await serverStatus(env, 5000))?.probe?.[key];
}

/** The recall server of `env`, started with the seam that stalls every read under `stalled`. */
async function startStalledServer(env: NodeJS.ProcessEnv, stalled: string): Promise<void> {
  server = await startServer(env, ['--test-stall-reads', stalled], () => probesReady(env));
}

/** The lines of a hook's log in the state dir. */
const hookLog = (state: string, hook: string): string[] => {
  const file = path.join(state, 'logs', `${hook}.log`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

/** A project on the stalled "mount": a linked worktree's `.git` file, which recall reads to find the repository. */
function stalledProject(base: string): string {
  const project = path.join(base, 'stalled-mount', 'shopapi');
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, '.git'), `gitdir: ${path.join(base, 'elsewhere', 'worktrees', 'shopapi')}\n`);
  return project;
}

describe('a project whose files stop answering, through the recall server', () => {
  it('its hooks answer in time with nothing and say why; another project is served by the server meanwhile', async () => {
    c = hostileCase();
    const project = stalledProject(c.base);
    await startStalledServer(c.env, path.dirname(project));
    const inStalled = { ...c.env, CLAUDE_PROJECT_DIR: project, REFLECT_RECALL_TIMEOUT: '5' };
    const start = runHook('session-start', {
      env: inStalled,
      cwd: project,
      stdin: JSON.stringify({ session_id: 's1', cwd: project, source: 'startup' }),
      killAfterMs: 30_000,
    });
    const meanwhile = runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-1'), killAfterMs: 30_000 });
    const started = await start;
    expect(expectEnvelope(started, 5000)).toBe('');
    // The person is told why recall stays silent in this session.
    expect((JSON.parse(started.stdout) as { systemMessage?: string }).systemMessage).toMatch(/^recall: .* did not answer/);
    expect(expectEnvelope(await meanwhile, 5000)).toContain('[lrn-pool]');

    // The stalled read never ends: the server still answers, and serves other projects itself.
    expect(await serverAnswers(c.env, 5000)).toBe(true);
    const after = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-2'), killAfterMs: 30_000 });
    expect(expectEnvelope(after, 5000)).toContain('[lrn-pool]');
    // Answered by the server, not by the client's in-process fallback (which logs a `server:` line).
    expect(hookLog(c.state, 'user-prompt-submit').filter((l) => /server:/.test(l))).toEqual([]);

    // The stalled project's next hook answers too, and the stall is in its log, naming the folder.
    const again = await runHook('user-prompt-submit', { env: inStalled, stdin: prompt(undefined, 's1'), killAfterMs: 30_000 });
    expect(expectEnvelope(again, 5000)).toBe('');
    // (The log is scrubbed: a path holding a random-looking part, as a temp folder's name may, is redacted whole.)
    for (const hook of ['session-start', 'user-prompt-submit'])
      expect(hookLog(c.state, hook).some((l) => /(stalled-mount\/shopapi|REDACTED\*+) did not answer/.test(l))).toBe(true);
    expect(hookLog(c.state, 'session-start').filter((l) => /server:/.test(l))).toEqual([]);
  }, 120_000);

  it('a SubagentStart transcript on the stalled mount: the hook recalls without it, says so, and the server is not wedged', async () => {
    c = hostileCase();
    const stalled = path.join(c.base, 'stalled-mount');
    fs.mkdirSync(stalled);
    const transcript = path.join(stalled, 'transcript.jsonl');
    fs.writeFileSync(transcript, '');
    await startStalledServer(c.env, stalled);
    const stdin = JSON.stringify({ session_id: 's1', agent_type: 'postgres connection pool', transcript_path: transcript, cwd: repo });
    const r = await runHook('subagent-start', { env: c.env, stdin, killAfterMs: 30_000 });
    // The transcript is one source: the payload's agent type still finds the note.
    expect(expectEnvelope(r, 5000)).toContain('[lrn-pool]');
    expect(hookLog(c.state, 'subagent-start').some((l) => /(stalled-mount\/transcript|REDACTED\*+)\.jsonl did not answer/.test(l))).toBe(
      true,
    );
    // The recall itself reports the source it went without (the recall log, as `recall trace` shows a run's degradations).
    expect(recallLog(c.state).find((e) => e.caller === 'subagent-start')?.degraded).toContain('transcript:timeout');
    expect(await serverAnswers(c.env, 5000)).toBe(true);
    const other = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-1'), killAfterMs: 30_000 });
    expect(expectEnvelope(other, 5000)).toContain('[lrn-pool]');
    expect(hookLog(c.state, 'user-prompt-submit').filter((l) => /server:/.test(l))).toEqual([]);
  }, 120_000);

  it("a project's KB on the stalled mount: that project's hook answers in time with nothing, another is served meanwhile", async () => {
    c = hostileCase();
    const stalled = path.join(c.base, 'stalled-mount');
    const kb = path.join(stalled, 'kb');
    fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
    fs.copyFileSync(path.join(c.kb, 'documents', 'pool.md'), path.join(kb, 'documents', 'pool.md'));
    const project = path.join(c.base, 'billing');
    fs.mkdirSync(project);
    await startStalledServer(c.env, stalled);
    const inStalled = { ...c.env, GLOBAL_LEARNINGS_PATH: kb, CLAUDE_PROJECT_DIR: project };
    const stuck = runHook('user-prompt-submit', { env: inStalled, stdin: prompt(undefined, 's1'), killAfterMs: 30_000 });
    const meanwhile = runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-1'), killAfterMs: 30_000 });
    expect(expectEnvelope(await stuck, 20_000)).toBe('');
    expect(expectEnvelope(await meanwhile, 5000)).toContain('[lrn-pool]');
    expect(await serverAnswers(c.env, 5000)).toBe(true);
    const after = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-2'), killAfterMs: 30_000 });
    expect(expectEnvelope(after, 5000)).toContain('[lrn-pool]');
    // Another project naming the same KB: not read (no other thread set aside on that KB).
    const other = path.join(c.base, 'shipping');
    fs.mkdirSync(other);
    expect(await waitFor(() => probesReady(c.env), 60_000, 50)).toBe(true);
    const inOther = { ...inStalled, CLAUDE_PROJECT_DIR: other };
    const second = await runHook('user-prompt-submit', { env: inOther, stdin: prompt(undefined, 's3'), killAfterMs: 30_000 });
    expect(expectEnvelope(second, 20_000)).toBe('');
    expect(await probeStat(c.env, 'stuck')).toBe(1);
    // The same project with settings naming a KB that answers is probed on its own, and served.
    const sameProject = { ...c.env, CLAUDE_PROJECT_DIR: project };
    const ok = await runHook('user-prompt-submit', { env: sameProject, stdin: prompt(undefined, 's2'), killAfterMs: 30_000 });
    expect(expectEnvelope(ok, 5000)).toContain('[lrn-pool]');
    expect(hookLog(c.state, 'user-prompt-submit').filter((l) => /server:/.test(l))).toEqual([]);
    expect(hookLog(c.state, 'user-prompt-submit').some((l) => /(stalled-mount\/kb|REDACTED\*+) did not answer/.test(l))).toBe(true);
  }, 120_000);

  it(`one stalled project, called from ${MAX_STUCK} terminals whose environments differ: other projects are still served`, async () => {
    c = hostileCase();
    const project = stalledProject(c.base);
    await startStalledServer(c.env, path.dirname(project));
    // A project served before the stall, and served after it.
    const before = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-1'), killAfterMs: 30_000 });
    expect(expectEnvelope(before, 5000)).toContain('[lrn-pool]');
    // Sessions of the stalled project in terminals whose environments differ (a terminal's own
    // variables, Claude Code's per-session CLAUDE_ENV_FILE): each is the same stalled folder.
    for (let i = 0; i < MAX_STUCK; i++) {
      expect(await waitFor(() => probesReady(c.env), 60_000, 50)).toBe(true);
      const env = { ...c.env, CLAUDE_PROJECT_DIR: project, REFLECT_RECALL_TIMEOUT: '5', TERM_SESSION_ID: `w${i}` };
      const r = await runHook('user-prompt-submit', { env, stdin: prompt(undefined, `s${i}`), killAfterMs: 30_000 });
      expect(expectEnvelope(r, 5000)).toBe('');
    }
    const after = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(undefined, 'other-2'), killAfterMs: 30_000 });
    expect(expectEnvelope(after, 5000)).toContain('[lrn-pool]');
  }, 180_000);
});
