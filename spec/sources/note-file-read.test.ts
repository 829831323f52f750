/**
 * Reading a KB file checks what was opened, not what the walk saw a moment earlier: a note swapped
 * for a symlink to a file outside the KB, or a folder swapped for a link to another folder, is
 * refused (as a problem of that file) instead of read.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { walkKb, type KbFile } from '../../sources/kb/walk.js';
import { readText } from '../../sources/kb/note-file-read.js';

let base = '';
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

function setup(): { kb: string; secret: string; outside: string } {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-read-'));
  const kb = path.join(base, 'kb');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(kb, 'documents', 'sub'), { recursive: true });
  fs.mkdirSync(outside);
  const secret = path.join(outside, 'secret.md');
  fs.writeFileSync(secret, 'SECRET OUTSIDE THE KB');
  fs.writeFileSync(path.join(outside, 'n.md'), 'SECRET OUTSIDE THE KB');
  fs.writeFileSync(path.join(kb, 'documents', 'a.md'), '# a\n\nnote a');
  fs.writeFileSync(path.join(kb, 'documents', 'sub', 'n.md'), '# n\n\nnote n');
  return { kb, secret, outside };
}

const file = (kb: string, rel: string, opts = {}): KbFile => {
  const f = walkKb(kb, opts).files.find((x) => x.rel === rel);
  if (!f) throw new Error(`${rel} not listed`);
  return f;
};

/** Replace `at` by a symlink to `to` in one rename, as an attacker racing the index would. */
function swapForLink(at: string, to: string): void {
  const tmp = `${at}.swap`;
  fs.symlinkSync(to, tmp);
  fs.renameSync(tmp, at);
}

describe('readText', () => {
  it('reads a note the walk listed, and a link that stays inside the KB', () => {
    const { kb } = setup();
    fs.symlinkSync(path.join(kb, 'documents', 'a.md'), path.join(kb, 'documents', 'alias.md'));
    expect(readText(file(kb, 'documents/a.md'))).toEqual({ text: '# a\n\nnote a' });
    expect(readText(file(kb, 'documents/alias.md'))).toEqual({ text: '# a\n\nnote a' });
  });

  it('refuses a note swapped for a symlink to a file outside the KB after the walk', () => {
    const { kb, secret } = setup();
    const f = file(kb, 'documents/a.md');
    swapForLink(f.abs, secret);
    const out = readText(f);
    expect(out).toEqual({ problem: expect.stringMatching(/symlink|outside the KB/) });
  });

  it('refuses a link inside the KB retargeted outside it after the walk', () => {
    const { kb, secret } = setup();
    fs.symlinkSync(path.join(kb, 'documents', 'a.md'), path.join(kb, 'documents', 'alias.md'));
    const f = file(kb, 'documents/alias.md');
    swapForLink(f.abs, secret);
    expect(readText(f)).toEqual({ problem: expect.stringMatching(/outside the KB/) });
  });

  it('refuses a note whose folder was swapped for a link to a folder outside the KB', () => {
    const { kb, outside } = setup();
    const f = file(kb, 'documents/sub/n.md');
    fs.renameSync(path.join(kb, 'documents', 'sub'), path.join(base, 'moved-sub'));
    fs.symlinkSync(outside, path.join(kb, 'documents', 'sub'));
    expect(readText(f)).toEqual({ problem: expect.stringMatching(/outside the KB/) });
  });

  it('with links outside allowed (RECALL_FOLLOW_OUTSIDE_LINKS), an outside link is read', () => {
    const { kb, secret } = setup();
    fs.symlinkSync(secret, path.join(kb, 'documents', 'out.md'));
    expect(readText(file(kb, 'documents/out.md', { followOutside: true }))).toEqual({ text: 'SECRET OUTSIDE THE KB' });
  });
});
