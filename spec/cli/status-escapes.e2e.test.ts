/** `recall status` lists skipped files by name: a name holding terminal escapes must not reach the terminal. */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { RECALL_BIN } from '../hooks/helpers.js';

describe('recall status', () => {
  it('prints skipped file names without escape sequences', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-status-esc-'));
    try {
      const kb = path.join(dir, 'kb');
      fs.mkdirSync(kb);
      fs.writeFileSync(path.join(kb, '\u001b[31mred\u001b[0m\u001b]0;title\u0007.md'), '\u0000binary');
      fs.writeFileSync(path.join(kb, 'ok.md'), '# ok note\n\nfine.\n');
      const r = spawnSync(process.execPath, [RECALL_BIN, 'status', '--kb', kb], {
        env: { PATH: process.env['PATH'] ?? '', HOME: dir, REFLECT_STATE_DIR: path.join(dir, 's') },
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      const line = r.stdout.split('\n').find((l) => l.includes('skipped red'));
      expect(line).toBeDefined();
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).not.toContain('\u0007');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
