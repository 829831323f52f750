/** Hooks never break the agent: bad env, unreadable KB, unwritable state, secrets in breadcrumbs (see helpers.ts). */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { type TempKb } from '../helpers/kb.js';
import { env, runHook, claudeContext, kbWithNotes } from './helpers.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

describe('hooks never break the agent', () => {
  const cases: [string, string][] = [
    ['empty stdin', ''],
    ['not JSON', '{"prompt": "unterminated'],
    ['a JSON array', '[1, 2, 3]'],
    ['wrong types', JSON.stringify({ session_id: { a: 1 }, prompt: 12345678901234, cwd: ['x'], agent_type: null })],
    ['huge stdin', JSON.stringify({ session_id: 's', prompt: 'x'.repeat(5 * 1024 * 1024) })],
  ];
  const hooks = ['session-start', 'user-prompt-submit', 'subagent-start'];

  it.each(cases)('exit 0 with one valid envelope on %s', (_name, stdin) => {
    kb = kbWithNotes();
    // No prompt could be read, so the prompt hooks have nothing to recall for; session start still
    // recalls for the project (the hook's cwd), in a whole envelope.
    for (const h of hooks) {
      const ctx = claudeContext(h, runHook(h, stdin, env(kb)));
      if (h !== 'session-start') expect(ctx).toBe('');
    }
  });

  it('falls back on malformed env values, an unreadable KB and an unwritable state dir', () => {
    kb = kbWithNotes();
    let n = 0;
    // A new session each time, so earlier calls do not dedupe the note away.
    const stdinOf = (): string =>
      JSON.stringify({ session_id: `s${(n += 1)}`, prompt: 'postgres connection pool exhausted in tests', cwd: kb.root });
    const stdin = stdinOf();
    const bad = {
      REFLECT_RECALL_TIMEOUT: 'soon',
      REFLECT_SUBAGENT_RECALL_TIMEOUT: '-1',
      RECALL_TAG_ALPHA: 'lots',
      REFLECT_RECALL_MIN_OVERLAP: '7',
      REFLECT_SUBAGENT_RECALL_LIMIT: 'x',
    };
    for (const h of hooks) claudeContext(h, runHook(h, stdin, env(kb, bad)));
    expect(claudeContext('user-prompt-submit', runHook('user-prompt-submit', stdinOf(), env(kb, bad)))).toContain('[lrn-pool]');
    const crumb = JSON.parse(fs.readFileSync(path.join(kb.state, 'last-event.json'), 'utf8')) as {
      hook: string;
      kind: string;
      detail: string;
    };
    expect(crumb.kind).toBe('config');
    const notAKb = path.join(kb.state, 'file-not-kb');
    fs.writeFileSync(notAKb, 'x');
    for (const h of hooks) expect(claudeContext(h, runHook(h, stdin, env(kb, { GLOBAL_LEARNINGS_PATH: notAKb })))).toBe('');
    // A state dir that cannot be created (its parent is a file): the index lives in memory.
    const unwritable = path.join(notAKb, 'state');
    for (const h of hooks) claudeContext(h, runHook(h, stdin, env(kb, { REFLECT_STATE_DIR: unwritable })));
    expect(
      claudeContext('user-prompt-submit', runHook('user-prompt-submit', stdinOf(), env(kb, { REFLECT_STATE_DIR: unwritable }))),
    ).toContain('[lrn-pool]');
  });

  it('never changes the mode of a state dir setting that names a file or a device (REFLECT_STATE_DIR=/dev/null)', () => {
    kb = kbWithNotes();
    const stdin = JSON.stringify({ session_id: 'dev', prompt: 'postgres connection pool exhausted in tests', cwd: kb.root });
    const targets: string[] = [];
    // A file this user owns: owner-only permissions were once forced on whatever the setting named.
    fs.mkdirSync(kb.state, { recursive: true });
    const file = path.join(kb.state, 'not-a-dir');
    fs.writeFileSync(file, 'x');
    fs.chmodSync(file, 0o644);
    targets.push(file);
    // As root, a character device like /dev/null (made here, never the real one).
    if (process.getuid?.() === 0 && spawnSync('mknod', [path.join(kb.state, 'null'), 'c', '1', '3']).status === 0) {
      fs.chmodSync(path.join(kb.state, 'null'), 0o666);
      targets.push(path.join(kb.state, 'null'));
    }
    for (const t of targets) {
      const before = fs.statSync(t).mode;
      for (const h of hooks) claudeContext(h, runHook(h, stdin, env(kb, { REFLECT_STATE_DIR: t })));
      expect(fs.statSync(t).mode).toBe(before);
    }
  });

  it('scrubs secrets from breadcrumbs', () => {
    kb = kbWithNotes();
    runHook(
      'user-prompt-submit',
      JSON.stringify({ prompt: 'postgres pool exhausted again' }),
      env(kb, { REFLECT_RECALL_TIMEOUT: 'token=sk-abcdefghijklmnopqrstuvwx' }),
    );
    const crumb = fs.readFileSync(path.join(kb.state, 'last-event.json'), 'utf8');
    expect(crumb).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(crumb).toContain('REDACTED');
  });
});
