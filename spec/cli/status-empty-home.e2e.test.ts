/**
 * `recall status` for a new user with no KB and no harness memory: each source is listed once, as not
 * read, with why (the KB saves go to stood in as "read" too, so the same folder was listed twice,
 * once as read with 0 live and once as not existing yet).
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let home = '';
afterEach(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('recall status with an empty HOME', () => {
  it('lists the missing KB once, as not read, with the fix', () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-status-empty-'));
    const r = spawnSync(path.join(repo, 'bin', 'recall'), ['status'], {
      cwd: home,
      env: { PATH: process.env['PATH'], HOME: home, RECALL_NO_SERVER: '1' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const learnings = path.join(home, '.learnings');
    expect(r.stdout).toMatch(/^sources {3}0 read, \d+ not read \(no KB configured: the zero-config sources\)$/m);
    expect(r.stdout).toContain(`not read ${learnings}: does not exist yet`);
    expect(r.stdout).not.toContain(`read ${learnings} (`);
  }, 60_000);
});
