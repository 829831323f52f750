/**
 * Accepting an agent's note is a person's word: a `recall view` started from an agent's shell
 * (CLAUDECODE=1: the agent could read the token it printed and post the form itself) refuses to
 * accept, as `recall accept` does there; the note stays unreviewed.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';
import { viewClient, type ViewClient } from '../helpers/view-client.js';

const bin = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'bin', 'recall');
const AGENT = { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'sess-agent-2' };

let w: ZeroConfigWorld;
let view: ChildProcess;
let client: ViewClient;

beforeAll(async () => {
  w = zeroConfigWorld();
  expect(w.recall(['add', '--id', 'lrn-agent', '--title', 'Run setup.sh first', '--insight', 'Curl it.'], { env: AGENT }).code).toBe(0);
  view = spawn(bin, ['view', '--no-open', '--port', '0'], { env: w.baseEnv(AGENT), cwd: w.project, stdio: ['ignore', 'pipe', 'pipe'] });
  const printed = new URL(
    await new Promise<string>((resolve, reject) => {
      let out = '';
      view.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      view.on('exit', (code) => reject(new Error(`recall view exited (${code})`)));
    }),
  );
  client = viewClient(printed.origin);
  expect((await client.login(printed.searchParams.get('t') ?? '')).status).toBe(303);
}, 120_000);

afterAll(async () => {
  if (view && view.exitCode === null) await new Promise((resolve) => view.once('exit', resolve).kill('SIGTERM'));
  w?.cleanup();
});

describe('recall view started from an agent’s shell', () => {
  it('refuses to accept an agent’s note, and the note stays unreviewed', async () => {
    const file = path.join(w.home, '.learnings', 'documents', 'run-setup-sh-first.md');
    const before = fs.readFileSync(file, 'utf8');
    const csrf = await client.csrfOf('lrn-agent');
    const r = await client.post({ action: 'accept', id: 'lrn-agent', kb: path.join(w.home, '.learnings'), csrf });
    expect(r.status).toBe(400);
    expect(r.body).toMatch(/accept: refused in a recall view started from an agent(&#39;|')s shell \(CLAUDECODE=1/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(before).toMatch(/^status: proposed$/m);
  });
});
