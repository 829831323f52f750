/**
 * A symlink swapped into a note's path while the index refreshes: a process keeps replacing a note
 * by a fresh copy (new mtime, so each refresh reads it) and then by a link to a file outside the KB,
 * while hooks and `recall stages hydrate` run. Prints how many of them showed the outside file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { PROMPT, cli, contextOf, freshCase, hook, note, row, run } from './harness.js';

const MARK = 'OUTSIDE-THE-KB-7f3a';

/** A child that swaps `at` between a regular note and a link to `secret` as fast as it can, until killed. */
function swapper(at: string, secret: string): ReturnType<typeof spawn> {
  const src = `
    const fs = require('fs');
    const [at, secret, text] = process.argv.slice(1);
    for (let i = 0; ; i += 1) {
      try {
        fs.writeFileSync(at + '.f', text + ' ' + i);
        fs.renameSync(at + '.f', at);
        fs.rmSync(at + '.l', { force: true });
        fs.symlinkSync(secret, at + '.l');
        fs.renameSync(at + '.l', at);
      } catch {}
    }`;
  return spawn(process.execPath, ['-e', src, at, secret, note('lrn-race', 'postgres connection pool race', 'the real note')], {
    stdio: 'ignore',
  });
}

export const RACE_CASES: Record<string, () => Promise<void>> = {
  async 'symlink-race'() {
    const c = freshCase();
    const secret = path.join(c.base, 'secret.md');
    fs.writeFileSync(
      secret,
      note('lrn-race', `postgres connection pool exhausted in tests ${MARK}`, `${MARK} credentials of the outside file`),
    );
    const at = path.join(c.kb, 'documents', 'race.md');
    fs.writeFileSync(at, note('lrn-race', 'postgres connection pool race', 'the real note'));
    const child = swapper(at, secret);
    const HOOKS = 40;
    const HYDRATES = 40;
    let hooksLeaked = 0;
    let hydratesLeaked = 0;
    let slowest = 0;
    let enveloped = 0;
    try {
      for (let i = 0; i < HOOKS; i += 1) {
        // Half through the recall server (its watcher refreshes), half in their own process.
        const env = i % 2 ? { ...c.env, RECALL_NO_SERVER: '1' } : c.env;
        const r = await run(hook('user-prompt-submit'), { env, stdin: PROMPT.replace('"s1"', `"race-${i}"`) });
        slowest = Math.max(slowest, r.ms);
        if (r.code === 0 && r.stdout.trim().split('\n').length === 1) enveloped += 1;
        if (contextOf(r.stdout).includes(MARK)) hooksLeaked += 1;
      }
      for (let i = 0; i < HYDRATES; i += 1) {
        const r = await run(cli('stages', 'hydrate', 'lrn-race', '--kb', c.kb), { env: c.env });
        if (r.stdout.includes(MARK)) hydratesLeaked += 1;
      }
    } finally {
      child.kill('SIGKILL');
    }
    row(
      'note path swapped for a link out of the KB during refreshes',
      { ms: slowest, code: 0, killed: false, stdout: '{}', stderr: '' },
      `outside file injected by ${hooksLeaked} of ${HOOKS} hooks (${enveloped} answered one envelope, exit 0), printed by ${hydratesLeaked} of ${HYDRATES} \`stages hydrate\``,
    );
  },
};
