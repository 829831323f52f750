/**
 * Client and server agree on a hook's deadline: it is worked out once, by the client, from the
 * environment and recall.toml, and carried on the call. Set `hook_timeout = 25` in recall.toml only
 * (the environment's default is 20 s): the client waits for the server until just before 25 s, not
 * 21, and answers inside the deadline; the server's run of that call is cut before the client gives
 * up, so nothing is recorded as injected that the agent never received.
 */
import { describe, it, expect, afterEach, beforeEach } from '@jest/globals';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Observable, VirtualTimeScheduler } from 'rxjs';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { ACCEPTED_LINE, serverSocketPath } from '../../sources/recall-server/protocol.js';
import { hookCall } from '../../client/hook-call.js';
import { answerHook } from '../../hooks/answer.js';
import { wellFormedCall } from '../../server/caller-request.js';
import { GIVE_UP_BEFORE_MS, RUN_CUT_BEFORE_MS, type HookCall } from '../../io/hook-input.js';
import { readInjected } from '../../sinks/logs/session-injected.js';
import { unavailable, type ModelClient, type RerankResult } from '../../core/ports.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const hookPath = path.join(repo, 'dist', 'hooks', 'user-prompt-submit.js');
const PROMPT = 'the postgres connection pool is exhausted in our tests again';
const input = (session: string): string => JSON.stringify({ session_id: session, prompt: PROMPT, hook_event_name: 'UserPromptSubmit' });

let kb: TempKb;
let fake: net.Server | null = null;

function env(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: kb.state, REFLECT_STATE_DIR: kb.state, GLOBAL_LEARNINGS_PATH: kb.root, ...driverEnv() };
}

beforeEach(() => {
  kb = tempKb();
  for (let i = 1; i <= 4; i++)
    kb.write(
      `documents/pool-${i}.md`,
      noteText(`lrn-pool-${i}`, `postgres connection pool exhausted in tests, case ${i}`, 'release clients'),
    );
  // The deadline in recall.toml only: nothing in the environment sets it.
  kb.write('../state/recall.toml', 'hook_timeout = 25\n');
});

afterEach(async () => {
  if (fake) await new Promise((r) => fake!.close(r));
  fake = null;
  kb.cleanup();
});

describe('one hook deadline, set in recall.toml only', () => {
  it('the client sends the 25 s deadline, waits for the server until just before it, and answers inside it', async () => {
    const e = env();
    const socket = serverSocketPath(e);
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // A server that accepts the call and never answers: the client must give up by itself.
    let request = '';
    fake = net.createServer((conn) => {
      let buf = '';
      conn.on('error', () => undefined);
      conn.on('data', (c) => {
        buf += c.toString();
        if (!request && buf.includes('\n')) {
          request = buf.slice(0, buf.indexOf('\n'));
          conn.write(`${ACCEPTED_LINE}\n`);
        }
      });
    });
    await new Promise<void>((r) => fake!.listen(socket, r));
    const out = await new Promise<{ stdout: string; code: number | null; printedAt: number }>((resolve) => {
      const child = spawn(process.execPath, [hookPath], { env: e, cwd: os.tmpdir() });
      let stdout = '';
      let printedAt = Infinity;
      child.stdout.on('data', (c: Buffer) => {
        printedAt = Math.min(printedAt, Date.now());
        stdout += c.toString();
      });
      child.on('close', (code) => resolve({ stdout, code, printedAt }));
      child.stdin.end(input('s-client'));
    });
    const call = (JSON.parse(request) as { call?: HookCall }).call;
    expect(call?.deadlineMs !== undefined && call.deadlineMs - call.startedMs).toBe(25_000);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '' } });
    // It waited for the server past the environment's 20 s (and the 21 s it used to give up at) ...
    expect(out.printedAt).toBeGreaterThan(call!.deadlineMs - 1000);
    // ... and answered inside the deadline (a loaded machine may deliver the bytes a little late).
    expect(out.printedAt).toBeLessThanOrEqual(call!.deadlineMs + 250);
    const log = fs.readFileSync(path.join(kb.state, 'logs', 'user-prompt-submit.log'), 'utf8');
    expect(log).toMatch(/server: the recall server accepted the call but did not answer by the deadline/);
  }, 60_000);

  it("the server's run of that call is cut before the client gives up, and records nothing", async () => {
    const call = hookCall('user-prompt-submit', input('s-server'), { env: env(), cwd: kb.root, startedMs: Date.now() });
    expect(call.deadlineMs - call.startedMs).toBe(25_000);
    // The recall waits on a cross-encoder that never answers, until the deadline cuts it (virtual time).
    let asked: () => void = () => undefined;
    const askedP = new Promise<void>((resolve) => (asked = resolve));
    const models: ModelClient = {
      models: { ce: 'fake-ce', embed: null },
      rerank: () => new Observable<RerankResult>(() => void asked()),
      embed: () => unavailable('no embedding model'),
      embedTexts: () => unavailable('no embedding model'),
      knn: () => unavailable('no embedding model'),
    };
    const scheduler = new VirtualTimeScheduler();
    const before = Date.now();
    // What the server runs for a hook request: answerHook on the call as the client sent it.
    const answer = answerHook(call, { scheduler, recallIo: { models } });
    await askedP;
    const after = Date.now();
    scheduler.flush();
    const envelope = await answer;
    // The cut came at the call's deadline less RUN_CUT_BEFORE_MS: before the client gives up.
    expect(before + scheduler.frame).toBeLessThanOrEqual(call.deadlineMs - RUN_CUT_BEFORE_MS);
    expect(after + scheduler.frame).toBeGreaterThanOrEqual(call.deadlineMs - RUN_CUT_BEFORE_MS);
    expect(RUN_CUT_BEFORE_MS).toBeGreaterThan(GIVE_UP_BEFORE_MS);
    expect(JSON.parse(envelope)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '' } });
    expect(readInjected(kb.state, 's-server').size).toBe(0);
    const logFile = path.join(kb.state, 'recall_log.jsonl');
    const lines = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean) : [];
    expect(lines.filter((l) => l.includes('user-prompt-submit'))).toEqual([]);
  });

  it('the server runs only a call of the shape its clients send (else the client runs it itself)', () => {
    const call = hookCall('user-prompt-submit', input('s-shape'), { env: env(), cwd: kb.root, startedMs: Date.now() });
    expect(wellFormedCall(call)).toBe(true);
    for (const bad of [undefined, null, {}, { ...call, deadlineMs: Number.NaN }, { ...call, stdinText: 3 }, { ...call, env: null }])
      expect(wellFormedCall(bad)).toBe(false);
  });
});
