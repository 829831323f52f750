/**
 * A hostile repository as the project a session starts in: a `.git/config` that asks git to run a
 * program (a signed commit, `log.showSignature` and `gpg.program`), and a `.git` or `HEAD` that is a
 * FIFO. The SessionStart hook, in-process and through the recall server, runs nothing the repository
 * asks for, never blocks on its files, and a wedged project never starves another one.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync, type ChildProcess } from 'node:child_process';
import {
  expectEnvelope,
  hostileCase,
  mkfifo,
  prompt,
  recallLog,
  repo,
  runHook,
  serverAnswers,
  startServer,
  stopServer,
  type Case,
} from './helpers.js';

let c: Case;
let server: ChildProcess | null = null;
afterEach(async () => {
  if (server) await stopServer(server, c.env);
  server = null;
  c?.cleanup();
});

const git = (dir: string, ...args: string[]): string => {
  const r = spawnSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: dir },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};

/**
 * A repository whose config makes `git log` run a script (which creates `marker`): one commit
 * carrying a signature header, `log.showSignature=true` and `gpg.program` naming the script.
 */
function signedHostileRepo(base: string): { project: string; marker: string } {
  const project = path.join(base, 'shopapi');
  const marker = path.join(base, 'MARKER');
  fs.mkdirSync(project);
  git(project, 'init', '-q', '-b', 'feat/payment-retries');
  git(
    project,
    '-c',
    'user.name=a',
    '-c',
    'user.email=a@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'postgres connection pool exhausted',
  );
  // The commit again, with a signature header: to git, a signed commit whose signature it checks.
  const text = git(project, 'cat-file', 'commit', 'HEAD');
  const signed = text.replace(
    /\n\n/,
    '\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEhostile\n -----END PGP SIGNATURE-----\n\n',
  );
  const sha = spawnSync('git', ['-C', project, 'hash-object', '-t', 'commit', '-w', '--stdin'], {
    input: `${signed}\n`,
    encoding: 'utf8',
  }).stdout.trim();
  git(project, 'update-ref', 'HEAD', sha);
  const script = path.join(base, 'evil.sh');
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  git(project, 'config', 'log.showSignature', 'true');
  git(project, 'config', 'gpg.program', script);
  git(project, 'config', 'core.fsmonitor', script);
  git(project, 'remote', 'add', 'origin', 'https://example.com/acme/shopapi.git');
  return { project, marker };
}

/** The queries of the recalls logged in the state dir. */
const loggedQueries = (state: string): string[] => recallLog(state).map((e) => String((e as { query?: unknown }).query ?? ''));

describe('a repository configured to run a program', () => {
  it('the fixture is hostile: plain `git log` in it runs the script', () => {
    c = hostileCase();
    const { project, marker } = signedHostileRepo(c.base);
    spawnSync('git', ['-C', project, 'log', '-1', '--format=%s'], { encoding: 'utf8' });
    expect(fs.existsSync(marker)).toBe(true);
  });

  it.each([
    ['in-process', { RECALL_NO_SERVER: '1' }],
    ['through the recall server', {}],
  ])(
    'SessionStart %s runs nothing, and still reads branch, origin and commit subjects',
    async (how, extra) => {
      c = hostileCase();
      const { project, marker } = signedHostileRepo(c.base);
      const env = { ...c.env, ...extra, CLAUDE_PROJECT_DIR: project };
      if (how !== 'in-process') server = await startServer(env);
      const r = await runHook('session-start', {
        env,
        cwd: project,
        stdin: JSON.stringify({ session_id: 's1', cwd: project, source: 'startup' }),
        killAfterMs: 40_000,
      });
      expectEnvelope(r, 10_000);
      expect(fs.existsSync(marker)).toBe(false);
      // The query was made from the repository all the same: its origin's name, its branch and its commit subject.
      const queries = loggedQueries(c.state);
      expect(queries.length).toBeGreaterThan(0);
      for (const q of queries) expect(q).toMatch(/^shopapi payment retries .*(postgres|connection|exhausted)/);
    },
    120_000,
  );
});

describe('a FIFO where git keeps its files', () => {
  const fifoRepo = (base: string, where: '.git' | 'HEAD' | 'gitdir-HEAD'): string => {
    const project = path.join(base, `fifo-${where}`);
    fs.mkdirSync(project);
    if (where === '.git') mkfifo(path.join(project, '.git'));
    else if (where === 'HEAD') {
      fs.mkdirSync(path.join(project, '.git'));
      mkfifo(path.join(project, '.git', 'HEAD'));
    } else {
      const gitDir = path.join(base, 'linked-gitdir');
      fs.mkdirSync(gitDir);
      mkfifo(path.join(gitDir, 'HEAD'));
      fs.writeFileSync(path.join(project, '.git'), `gitdir: ${gitDir}\n`);
    }
    return project;
  };

  it.each(['.git', 'HEAD', 'gitdir-HEAD'] as const)(
    '%s a FIFO: SessionStart answers in time, in-process',
    async (where) => {
      c = hostileCase();
      const project = fifoRepo(c.base, where);
      const env = { ...c.env, RECALL_NO_SERVER: '1', CLAUDE_PROJECT_DIR: project, REFLECT_RECALL_TIMEOUT: '5' };
      const r = await runHook('session-start', {
        env,
        cwd: project,
        stdin: JSON.stringify({ session_id: 's1', cwd: project, source: 'startup' }),
        killAfterMs: 20_000,
      });
      expectEnvelope(r, 5000);
    },
    60_000,
  );

  it('HEAD a FIFO through the server: that project answers and another project is served meanwhile', async () => {
    c = hostileCase();
    const project = fifoRepo(c.base, 'gitdir-HEAD');
    server = await startServer(c.env);
    const start = runHook('session-start', {
      env: { ...c.env, CLAUDE_PROJECT_DIR: project },
      cwd: project,
      stdin: JSON.stringify({ session_id: 's1', cwd: project, source: 'startup' }),
      killAfterMs: 30_000,
    });
    const other = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(), killAfterMs: 30_000 });
    expect(expectEnvelope(other, 5000)).toContain('[lrn-pool]');
    expectEnvelope(await start, 10_000);
    expect(await serverAnswers(c.env, 5000)).toBe(true);
  }, 120_000);

  it('a FIFO as SubagentStart transcript_path: the hook answers with notes, and the server is not wedged', async () => {
    c = hostileCase();
    const fifo = path.join(c.base, 'transcript.jsonl');
    mkfifo(fifo);
    server = await startServer(c.env);
    const stdin = JSON.stringify({ session_id: 's1', agent_type: 'postgres connection pool', transcript_path: fifo, cwd: repo });
    const r = await runHook('subagent-start', { env: c.env, stdin, killAfterMs: 30_000 });
    expectEnvelope(r, 5000);
    expect(await serverAnswers(c.env, 5000)).toBe(true);
    const other = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(), killAfterMs: 30_000 });
    expect(expectEnvelope(other, 5000)).toContain('[lrn-pool]');
  }, 120_000);
});
