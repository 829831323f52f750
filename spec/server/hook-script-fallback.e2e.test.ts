/**
 * The generated hook scripts (`dist/hooks/<name>.js`) load the thin client's bundle. When that
 * bundle is missing or cannot load (an update half done), the script still answers "nothing to add"
 * in the shape of the harness running it: the same bytes as the hook's golden empty envelope.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HOOK_NAMES } from '../../hooks/hook-table.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hook-script-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a hook script without its bundle', () => {
  for (const name of HOOK_NAMES) {
    for (const harness of ['claude', 'codex', 'copilot']) {
      it(`${name} on ${harness} prints the golden empty envelope and exits 0`, () => {
        // A copy of the script in a folder with no bundle next to it.
        fs.mkdirSync(path.join(tmp, 'hooks'), { recursive: true });
        const script = path.join(tmp, 'hooks', `${name}.js`);
        fs.copyFileSync(path.join(repo, 'dist', 'hooks', `${name}.js`), script);
        const env = { PATH: process.env['PATH'] ?? '', HOME: tmp, REFLECT_STATE_DIR: tmp, REFLECT_HARNESS: harness };
        const r = spawnSync(process.execPath, [script], { input: '{}', env, encoding: 'utf8', timeout: 10_000 });
        const golden = fs.readFileSync(path.join(repo, 'spec', 'golden', 'hooks', `${name}.${harness}.empty.json`), 'utf8');
        expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 0, stdout: golden });
      });
    }
  }
});
