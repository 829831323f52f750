/**
 * The stdin wait counts from when reading starts: a hook that a loaded machine starts late (its
 * deadline's share for stdin used up before it reads) still reads input already waiting in a pipe
 * or a file, instead of answering from "empty stdin".
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stdinWaitMs, STDIN_MIN_WAIT_MS, STDIN_WAIT_MS } from '../../io/hook-input.js';
import { hostileKb } from '../../scripts/hostile/processes.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAYLOAD = JSON.stringify({ session_id: 's1', agent_type: 'postgres pool', transcript_path: '/nonexistent' });

/**
 * A process that starts reading stdin a second past its deadline (as a slow start on a loaded
 * machine leaves a hook), waiting what the hooks' rule gives for that, then gets no CPU for a
 * while, and prints what it read.
 */
const READER = `
import { readStdin, stdinWaitMs } from ${JSON.stringify(path.join(repo, 'dist', 'io', 'hook-input.js'))};
const read = readStdin(process.stdin, 4 << 20, stdinWaitMs(Date.now() - 1000));
const t = Date.now();
while (Date.now() - t < 300) {}
process.stdout.write(JSON.stringify(await read));
process.exit(0);
`;

function runReader(stdin: 'pipe' | number, write?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', READER], { stdio: [stdin, 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    // Written at spawn and left open, as a harness may: the JSON is in the pipe before the reader starts.
    if (write !== undefined) child.stdin!.write(write);
    child.on('close', (code) => {
      child.stdin?.destroy();
      if (code === 0) resolve(JSON.parse(out) as string);
      else reject(new Error(`reader exited ${code}: ${err}`));
    });
  });
}

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('hook stdin on a loaded machine', () => {
  it('a file as stdin is read whole even with no time left to wait', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-stdin-'));
    const file = path.join(dir, 'payload.json');
    fs.writeFileSync(file, PAYLOAD);
    const fd = fs.openSync(file, 'r');
    try {
      expect(await runReader(fd)).toBe(PAYLOAD);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('JSON already in the pipe is read even with no time left to wait', async () => {
    expect(await runReader('pipe', PAYLOAD)).toBe(PAYLOAD);
  });

  it('SubagentStart started past its deadline by a slow start, stdin a file: input read, no "empty stdin", an empty answer at once', async () => {
    const c = hostileKb();
    dir = c.base;
    const file = path.join(c.base, 'payload.json');
    fs.writeFileSync(file, JSON.stringify({ session_id: 's1', agent_type: 'postgres pool', cwd: c.kb }));
    // A start-up that takes longer than the whole deadline, as 100 hooks at once on 2 cores did.
    const slow = path.join(c.base, 'slow-start.cjs');
    fs.writeFileSync(slow, 'const t = Date.now(); while (Date.now() - t < 1500) {}\n');
    const fd = fs.openSync(file, 'r');
    const env = { ...c.env, RECALL_NO_SERVER: '1', REFLECT_SUBAGENT_RECALL_TIMEOUT: '1', NODE_OPTIONS: `--require ${slow}` };
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(repo, 'dist', 'hooks', 'subagent-start.js')], {
        env,
        stdio: [fd, 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
      child.on('close', (code) => resolve({ code, stdout }));
    });
    fs.closeSync(fd);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout.trim())).toHaveProperty('hookSpecificOutput.hookEventName', 'SubagentStart');
    const logs = path.join(c.state, 'logs');
    const said = fs.existsSync(logs)
      ? fs
          .readdirSync(logs)
          .map((f) => fs.readFileSync(path.join(logs, f), 'utf8'))
          .join('')
      : '';
    const crumb = fs.existsSync(path.join(c.state, 'last-event.json'))
      ? fs.readFileSync(path.join(c.state, 'last-event.json'), 'utf8')
      : '';
    expect(said + crumb).not.toContain('empty stdin');
    // Its input read, past the deadline: the hook answers at once instead of starting a recall that could only be late.
    expect(said).toContain('started too late: the 1 s deadline passed before the input was read; no context given');
  });

  it('the wait is bounded by the deadline, with a floor for input still on its way', () => {
    const now = 1_000_000;
    expect(stdinWaitMs(now + 60_000, now)).toBe(STDIN_WAIT_MS);
    expect(stdinWaitMs(now + 2000, now)).toBe(500);
    expect(stdinWaitMs(now - 3000, now)).toBe(STDIN_MIN_WAIT_MS);
  });
});
