/**
 * A state dir another user owns (a shared 0777 folder holding a pre-made 0666 recall_log.jsonl):
 * prompts must never be appended where that user reads them. Hooks refuse the folder with a
 * one-line reason, still answer with one valid envelope, and record why in the user's own state
 * dir; the CLI refuses with the same line. Needs root, to make a folder of another user.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { expectEnvelope, hostileCase, prompt, runCli, runHook, type Case } from './helpers.js';
import { appendText } from '../../io/atomic-write.js';

/** Another user's id: nobody. */
const OTHER = 65534;
const asRoot = process.getuid?.() === 0;
const rootIt = asRoot ? it : it.skip;

let c: Case;
afterEach(() => c?.cleanup());

/** A 0777 folder of another user with a 0666 recall_log.jsonl of theirs, and the env pointing at it. */
function foreignStateDir(): { dir: string; log: string; env: NodeJS.ProcessEnv; home: string } {
  c = hostileCase();
  const dir = path.join(c.base, 'shared-state');
  fs.mkdirSync(dir, { mode: 0o777 });
  fs.chmodSync(dir, 0o777);
  const log = path.join(dir, 'recall_log.jsonl');
  fs.writeFileSync(log, '', { mode: 0o666 });
  fs.chmodSync(log, 0o666);
  fs.chownSync(log, OTHER, OTHER);
  fs.chownSync(dir, OTHER, OTHER);
  const home = path.join(c.base, 'home');
  fs.mkdirSync(home);
  return { dir, log, home, env: { ...c.env, HOME: home, REFLECT_STATE_DIR: dir } };
}

describe('a state dir of another user', () => {
  rootIt('the prompt hook answers, writes nothing there, and records why in the own state dir', async () => {
    const s = foreignStateDir();
    const before = fs.readdirSync(s.dir).sort();
    const r = await runHook('user-prompt-submit', {
      env: { ...s.env, RECALL_NO_SERVER: '1' },
      stdin: prompt('postgres pool exhausted: password hunter2'),
    });
    expectEnvelope(r, 20_000);
    expect(fs.readFileSync(s.log, 'utf8')).toBe('');
    expect(fs.readdirSync(s.dir).sort()).toEqual(before);
    const crumb = fs.readFileSync(path.join(s.home, '.reflect', 'last-event.json'), 'utf8');
    expect(crumb).toContain(`belongs to uid ${OTHER}, not to this user`);
  });

  rootIt('the same through the recall server path (its socket folder there is refused too)', async () => {
    const s = foreignStateDir();
    const before = fs.readdirSync(s.dir).sort();
    const r = await runHook('user-prompt-submit', { env: s.env, stdin: prompt() });
    expectEnvelope(r, 20_000);
    expect(fs.readFileSync(s.log, 'utf8')).toBe('');
    expect(fs.readdirSync(s.dir).sort()).toEqual(before);
  });

  rootIt('SessionStart tells the person, in one line', async () => {
    const s = foreignStateDir();
    const r = await runHook('session-start', {
      env: { ...s.env, RECALL_NO_SERVER: '1' },
      stdin: JSON.stringify({ session_id: 's1', source: 'startup', cwd: c.kb }),
      cwd: c.kb,
    });
    expectEnvelope(r, 20_000);
    const line = r.stdout.split('\n')[0]!;
    expect(line).toContain(`state dir ${s.dir} belongs to uid ${OTHER}, not to this user`);
    expect(fs.readFileSync(s.log, 'utf8')).toBe('');
  });

  rootIt('the CLI refuses with the same line, and writes nothing there', async () => {
    const s = foreignStateDir();
    const before = fs.readdirSync(s.dir).sort();
    const r = await runCli(['postgres pool', '--kb', c.kb], { env: { ...s.env, RECALL_NO_SERVER: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`state dir ${s.dir} belongs to uid ${OTHER}, not to this user`);
    expect(fs.readdirSync(s.dir).sort()).toEqual(before);
  });

  rootIt('a log file of another user in an own folder is not appended to', () => {
    c = hostileCase();
    const log = path.join(c.state, 'recall_log.jsonl');
    fs.writeFileSync(log, '', { mode: 0o666 });
    fs.chownSync(log, OTHER, OTHER);
    expect(() => appendText(log, 'a prompt\n')).toThrow(`belongs to uid ${OTHER}, not to this user`);
    expect(fs.readFileSync(log, 'utf8')).toBe('');
  });
});
