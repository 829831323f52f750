/**
 * Shell completion as a user of a clone gets it (issue 37, item 8): `recall` on PATH the way `npm
 * link` puts it there (a `recall` symlink in a bin folder to the clone's bin/recall), the script of
 * `recall completion` sourced in a real bash, and the completion function asked for a command and for
 * option prefixes, the plain recall's own (`--li` → `--limit`) and a sub-command's.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { bin, env } from './defects-helpers.js';
import { completionsOf } from '../../cli/parser.js';

const linkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-path-'));
fs.symlinkSync(bin, path.join(linkDir, 'recall'));
afterAll(() => fs.rmSync(linkDir, { recursive: true, force: true }));

/** What bash completes for the words typed so far (the last one is being completed). */
function complete(...words: string[]): string[] {
  const script = [
    'source <(recall completion)',
    `COMP_WORDS=(recall ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}`,
    '_recall_yargs_completions',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const e = env({ PATH: `${linkDir}:${process.env['PATH'] ?? ''}`, RECALL_NO_SERVER: '1' });
  const r = spawnSync('bash', ['-c', script], { env: e, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('shell completion with recall on PATH', () => {
  it('completes option prefixes of a plain recall', () => {
    expect(complete('--li')).toEqual(['--limit']);
    expect(complete('--fl')).toEqual(['--floor']);
    expect(complete('--for')).toEqual(['--format']);
  }, 120_000);

  it("completes commands, and a sub-command's own options", () => {
    expect(complete('stat')).toEqual(['status']);
    expect(complete('list', '--al').sort()).toEqual(['--all', '--all-branches']);
  }, 120_000);

  it('offers the default command as no word of its own ($0)', () => {
    expect(completionsOf('', { _: ['recall'] }, ['status', '$0'], false)).toEqual(['status']);
    // Inside a sub-command, the plain recall's options are not offered.
    expect(completionsOf('--li', { _: ['recall', 'list'] }, ['--limit'], false)).toEqual(['--limit']);
    expect(completionsOf('--fl', { _: ['recall', 'list'] }, [], false)).toEqual([]);
    // zsh shows a description after the colon.
    expect(completionsOf('--li', { _: ['recall'] }, [], true)).toEqual([expect.stringMatching(/^--limit:results to return/)]);
  });
});
