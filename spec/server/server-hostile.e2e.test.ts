/**
 * A recall server that cannot be used never costs a hook its envelope: no folder for its socket, a
 * server that dies in the middle of an answer, one that accepts and then never answers. Each time
 * the hook prints one envelope, exits 0, and its log says why the server was not used.
 */
import { describe, it, expect, afterEach, beforeEach } from '@jest/globals';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { ACCEPTED_LINE, GO_LINE, serverSocketPath } from '../../sources/recall-server/protocol.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const hookPath = path.join(repo, 'dist', 'hooks', 'user-prompt-submit.js');
const INPUT = JSON.stringify({ prompt: 'postgres connection pool exhausted in tests' });

let kb: TempKb;
let fake: net.Server | null = null;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: kb.state,
    REFLECT_STATE_DIR: kb.state,
    GLOBAL_LEARNINGS_PATH: kb.root,
    REFLECT_NO_DAEMON: '1',
    ...driverEnv(),
    ...extra,
  };
}

/** The hook run as a harness runs it, asynchronously (the fake server lives in this process). */
function hook(e: Record<string, string>): Promise<{ stdout: string; code: number | null; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [hookPath], { env: e, cwd: os.tmpdir() });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('close', (code) => resolve({ stdout, code, ms: performance.now() - t0 }));
    child.stdin.end(INPUT);
  });
}

function hookLog(): string {
  const file = path.join(kb.state, 'logs', 'user-prompt-submit.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

/** A fake server on the real socket path: `onGo` decides what happens once the client said go. */
async function fakeServer(e: Record<string, string>, onGo: (conn: net.Socket) => void): Promise<void> {
  const socket = serverSocketPath(e);
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  fake = net.createServer((conn) => {
    let buf = '';
    conn.on('error', () => undefined);
    conn.on('data', (c) => {
      buf += c.toString();
      if (buf.split('\n').length === 2) conn.write(`${ACCEPTED_LINE}\n`);
      if (buf.includes(`\n${GO_LINE}\n`)) onGo(conn);
    });
  });
  await new Promise<void>((r) => fake!.listen(socket, r));
}

beforeEach(() => {
  kb = tempKb();
  kb.write('documents/pool.md', noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'use one engine per test session'));
});

afterEach(async () => {
  if (fake) await new Promise((r) => fake!.close(r));
  fake = null;
  kb.cleanup();
});

describe('a recall server that cannot be used', () => {
  it('no folder for the socket (a file where the run dir goes): answered in-process, the reason logged', async () => {
    const alone = await hook(env({ RECALL_NO_SERVER: '1' }));
    fs.mkdirSync(kb.state, { recursive: true });
    fs.writeFileSync(path.join(kb.state, 'run'), 'not a folder');
    const out = await hook(env());
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(JSON.parse(alone.stdout));
    expect(out.stdout).toContain('lrn-pool');
    expect(out.ms).toBeLessThan(alone.ms + 1500);
    expect(hookLog()).toMatch(/server: the recall server socket or its folder is not usable/);
  }, 30_000);

  it('a server that dies in the middle of its answer: answered in-process, the reason logged', async () => {
    const e = env();
    const alone = await hook({ ...e, RECALL_NO_SERVER: '1' });
    await fakeServer(e, (conn) => {
      conn.write('{"ok":true,"envel');
      conn.destroy();
    });
    const out = await hook(e);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(JSON.parse(alone.stdout));
    expect(hookLog()).toMatch(/server: the recall server closed the connection without an answer/);
  }, 30_000);

  it('a server that accepts and never answers: an empty envelope by the deadline, not a second run', async () => {
    const e = env({ REFLECT_RECALL_TIMEOUT: '1' });
    await fakeServer(e, () => undefined);
    const out = await hook(e);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '' } });
    // Deadline 1 s, the server's grace 1 s, and room for a busy machine.
    expect(out.ms).toBeLessThan(1000 + 1000 + 2500);
    expect(hookLog()).toMatch(/server: the recall server accepted the call but did not answer by the deadline/);
    expect(fs.existsSync(path.join(kb.state, 'session-injected'))).toBe(false);
  }, 30_000);

  it("the thin client's log line is scrubbed like every other: a state dir named like a token is redacted", async () => {
    // A GitHub token shape in the folder name: the socket path in the line would carry it.
    const state = path.join(kb.state, 'ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5');
    fs.mkdirSync(state, { recursive: true, mode: 0o700 });
    const e = env({ HOME: state, REFLECT_STATE_DIR: state, REFLECT_RECALL_TIMEOUT: '1' });
    await fakeServer(e, () => undefined);
    const out = await hook(e);
    expect(out.code).toBe(0);
    const log = fs.readFileSync(path.join(state, 'logs', 'user-prompt-submit.log'), 'utf8');
    expect(log).toMatch(/server: the recall server accepted the call but did not answer by the deadline \(\*\*\*REDACTED\*\*\*/);
    expect(log).not.toContain('ghp_');
  }, 30_000);
});
