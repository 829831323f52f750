/**
 * The built tool-call hook, run in its own process as the first hooks of a session are (no recall
 * server yet): it keeps the triggers it derived next to the KB's index, owner-only, and a later
 * process reads them; a file it cannot read changes no answer, is named in the hook's log and is
 * written again.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repo } from './helpers.js';
import { driverEnv } from '../helpers/driver.js';
import { TRIGGER_SHAPE, readStoredTriggers } from '../../hooks/action-trigger-store.js';

const CLIENT = path.join(repo, 'dist', 'bundle', 'client.mjs');
const BUILD = fs.readFileSync(path.join(repo, 'dist', 'bundle', 'build-id'), 'utf8').trim();
const SHAPE = TRIGGER_SHAPE;
let base: string;
let state: string;
let kb: string;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-trigger-e2e-'));
  state = path.join(base, 'state');
  kb = path.join(base, 'kb');
  fs.mkdirSync(kb);
  fs.writeFileSync(
    path.join(kb, 'use-pnpm.md'),
    '---\nid: use-pnpm\ntitle: This repo installs with pnpm only\n---\nUse `pnpm install`; never `npm install`, it writes a second lockfile.\n',
  );
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function hook(session: string, command: string): string {
  const input = JSON.stringify({
    session_id: session,
    transcript_path: '/dev/null',
    cwd: base,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
  });
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: base,
    REFLECT_STATE_DIR: state,
    GLOBAL_LEARNINGS_PATH: kb,
    RECALL_NO_SERVER: '1',
    ...driverEnv(),
  };
  const r = spawnSync(process.execPath, [CLIENT, 'hook', 'pre-tool-use'], { input, env, cwd: base, encoding: 'utf8', timeout: 20_000 });
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext?: string } }).hookSpecificOutput.additionalContext ?? '';
}

const triggerFile = (): string => {
  const files = fs.readdirSync(path.join(state, 'index')).filter((f) => f.endsWith('.triggers'));
  expect(files).toHaveLength(1);
  return path.join(state, 'index', files[0]!);
};

describe('the tool-call hook keeps its triggers for the next process', () => {
  it('writes them owner-only beside the index, for this build', () => {
    expect(hook('s1', 'npm install zod')).toContain('**[use-pnpm]**');
    const file = triggerFile();
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect([...readStoredTriggers(file, BUILD, SHAPE).entries.values()].map((t) => t.id)).toEqual(['use-pnpm']);
  });

  it('answers the same from a damaged file, says so in its log, and writes it again', () => {
    const file = triggerFile();
    fs.writeFileSync(file, Buffer.from([0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]));
    expect(hook('s2', 'npm install zod')).toContain('**[use-pnpm]**');
    const log = fs.readFileSync(path.join(state, 'logs', 'pre-tool-use.log'), 'utf8');
    // (The log is scrubbed: a temp folder's random name may read as a secret, so only the end is checked.)
    expect(log).toMatch(/\.sqlite\.triggers: unreadable \(/);
    expect(readStoredTriggers(file, BUILD, SHAPE).entries.size).toBe(1);
  });
});
