/**
 * A hostile project around the hook: a `.git/config` that makes `git log` run a script, a FIFO as
 * `.git`, as the HEAD a `gitdir:` file names, or as SubagentStart's `transcript_path`, and a hook
 * whose stdin is a file but whose start-up ate its whole deadline.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { PROMPT, contextOf, freshCase, hook, repo, row, run, type Run } from './harness.js';

const GIT_ENV = { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent' };
const git = (dir: string, ...a: string[]): string =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=a', '-c', 'user.email=a@example.com', ...a], { encoding: 'utf8', env: GIT_ENV }).trim();

/** A repository whose `git log` runs a script creating `marker` (a signed commit, log.showSignature, gpg.program). */
function hostileRepo(base: string): { project: string; marker: string } {
  const project = path.join(base, 'shopapi');
  const marker = path.join(base, 'MARKER');
  fs.mkdirSync(project);
  git(project, 'init', '-q');
  git(project, 'commit', '-q', '--allow-empty', '-m', 'postgres connection pool exhausted');
  const signed = git(project, 'cat-file', 'commit', 'HEAD').replace(
    /\n\n/,
    '\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEhostile\n -----END PGP SIGNATURE-----\n\n',
  );
  const sha = spawnSync('git', ['-C', project, 'hash-object', '-t', 'commit', '-w', '--stdin'], { input: `${signed}\n`, encoding: 'utf8' });
  git(project, 'update-ref', 'HEAD', sha.stdout.trim());
  const script = path.join(base, 'evil.sh');
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  git(project, 'config', 'log.showSignature', 'true');
  git(project, 'config', 'gpg.program', script);
  return { project, marker };
}

const sessionStart = (project: string): string => JSON.stringify({ session_id: 's1', source: 'startup', cwd: project });

export const REPO_CASES: Record<string, () => Promise<void>> = {
  async 'git-config'() {
    const c = freshCase();
    const { project, marker } = hostileRepo(c.base);
    const env = { ...c.env, RECALL_NO_SERVER: '1', CLAUDE_PROJECT_DIR: project };
    const r = await run(hook('session-start'), { env, stdin: sessionStart(project), cwd: project });
    row('.git/config runs a script from `git log` (SessionStart)', r, `script ran: ${fs.existsSync(marker) ? 'YES' : 'no'}`);
  },
  async 'fifo-git'() {
    for (const where of ['.git', 'gitdir HEAD'] as const) {
      const c = freshCase();
      const project = path.join(c.base, 'project');
      fs.mkdirSync(project);
      if (where === '.git') execFileSync('mkfifo', [path.join(project, '.git')]);
      else {
        fs.mkdirSync(path.join(c.base, 'gitdir'));
        execFileSync('mkfifo', [path.join(c.base, 'gitdir', 'HEAD')]);
        fs.writeFileSync(path.join(project, '.git'), `gitdir: ${path.join(c.base, 'gitdir')}\n`);
      }
      const env = { ...c.env, RECALL_NO_SERVER: '1', CLAUDE_PROJECT_DIR: project };
      const r = await run(hook('session-start'), { env, stdin: sessionStart(project), cwd: project });
      row(`${where} a FIFO (SessionStart, in-process)`, r, `context ${contextOf(r.stdout).length} chars`);
    }
  },
  async 'fifo-transcript'() {
    const c = freshCase();
    const fifo = path.join(c.base, 'transcript.jsonl');
    execFileSync('mkfifo', [fifo]);
    // A first prompt starts the recall server for the next calls; the FIFO then goes to the server.
    await run(hook('user-prompt-submit'), { env: c.env, stdin: PROMPT });
    const stdin = JSON.stringify({ session_id: 's1', agent_type: 'postgres pool', transcript_path: fifo });
    const sub = run(hook('subagent-start'), { env: c.env, stdin });
    // Another session's prompt (the first one's notes are not injected twice in a session).
    const other: Run = await run(hook('user-prompt-submit'), { env: c.env, stdin: PROMPT.replace('"s1"', '"s2"') });
    const r = await sub;
    row('FIFO as SubagentStart transcript_path (through the server)', r, `context ${contextOf(r.stdout).length} chars`);
    row('  a prompt meanwhile', other, `context ${contextOf(other.stdout).length} chars`);
  },
  async 'late-stdin-file'() {
    const c = freshCase();
    const file = path.join(c.base, 'payload.json');
    fs.writeFileSync(file, JSON.stringify({ session_id: 's1', agent_type: 'postgres pool', cwd: c.kb }));
    // A start-up slower than the whole deadline, as 100 hooks at once on 2 cores had.
    const slow = path.join(c.base, 'slow-start.cjs');
    fs.writeFileSync(slow, 'const t = Date.now(); while (Date.now() - t < 1500) {}\n');
    const env = { ...c.env, RECALL_NO_SERVER: '1', REFLECT_SUBAGENT_RECALL_TIMEOUT: '1', NODE_OPTIONS: `--require ${slow}` };
    const fd = fs.openSync(file, 'r');
    const t0 = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [path.join(repo, 'dist', 'hooks', 'subagent-start.js')], {
        env,
        stdio: [fd, 'ignore', 'ignore'],
      });
      child.on('close', resolve);
    });
    fs.closeSync(fd);
    const logs = path.join(c.state, 'logs');
    const said = fs.existsSync(logs)
      ? fs
          .readdirSync(logs)
          .map((f) => fs.readFileSync(path.join(logs, f), 'utf8'))
          .join('')
      : '';
    row(
      'SubagentStart, stdin a file, start-up 1.5 s past a 1 s deadline',
      { ms: performance.now() - t0, code, killed: false, stdout: '{}', stderr: '' },
      `logged "empty stdin": ${said.includes('empty stdin') ? 'YES' : 'no'}`,
    );
  },
};
