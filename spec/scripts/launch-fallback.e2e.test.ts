/**
 * The launcher (scripts/launch.mjs) runs before anything is built. When the bundle cannot be built
 * (here: an install folder with no sources and no esbuild), each hook must still answer the empty
 * envelope of its own event in its harness's shape, exactly the golden empty envelope the built hooks
 * answer, and exit 0.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HOOK_NAMES } from '../../hooks/hook-table.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const golden = path.join(repo, 'spec', 'golden', 'hooks');

let root: string;
let state: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-launch-'));
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-launch-state-'));
  for (const f of ['scripts/launch.mjs', 'scripts/hook-names.mjs', 'hooks/hooks.json']) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.copyFileSync(path.join(repo, f), path.join(root, f));
  }
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(state, { recursive: true, force: true });
});

function launch(name: string, harness: string): { status: number | null; stdout: string } {
  const env = { PATH: process.env['PATH'], HOME: state, REFLECT_STATE_DIR: state, REFLECT_HARNESS: harness };
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'launch.mjs'), 'hook', name], {
    env,
    input: '{"session_id":"s","prompt":"postgres pool"}',
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout };
}

describe('launcher fallback envelope', () => {
  for (const name of HOOK_NAMES) {
    for (const harness of ['claude', 'codex', 'copilot']) {
      it(`${name} on ${harness}: the golden empty envelope, exit 0, when the bundle cannot be built`, () => {
        const r = launch(name, harness);
        expect(r.status).toBe(0);
        const golden_ = fs.readFileSync(path.join(golden, `${name}.${harness}.empty.json`), 'utf8').trim();
        if (name === 'session-start' && harness === 'claude') {
          // Claude Code's SessionStart also tells the person why recall cannot start and how to repair it.
          const { systemMessage, ...rest } = JSON.parse(r.stdout) as { systemMessage: string };
          expect(JSON.stringify(rest)).toBe(golden_);
          expect(systemMessage).toMatch(/^recall cannot start \(.+\); install it: cd ".+" && npm ci$/);
          expect(r.stdout.trim().split('\n')).toHaveLength(1);
        } else expect(r.stdout).toBe(golden_ + '\n');
      });
    }
  }

  it("removes the half-built folders of first runs that were killed, and no live process's", () => {
    // A killed first run (a hook's deadline) leaves its temp folder; the next first run clears it.
    const dist = path.join(root, 'dist');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    for (const name of [`.data-${dead}-1`, `.bundle-${dead}-2`, `.data-${process.pid}-3`])
      fs.mkdirSync(path.join(dist, name), { recursive: true });
    expect(launch('pre-tool-use', 'claude').status).toBe(0);
    expect(
      fs
        .readdirSync(dist)
        .filter((n) => n.startsWith('.'))
        .sort(),
    ).toEqual([`.data-${process.pid}-3`]);
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('an unknown hook name answers an empty object and exits 0', () => {
    const r = launch('bogus', 'claude');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('{}\n');
  });

  it("carries sinks/hook-envelope.ts's emptyEnvelope as the build writes it (its block is current)", () => {
    const check = `
      import fs from 'node:fs';
      const m = await import(${JSON.stringify(path.join(repo, 'scripts', 'bundle.mjs'))});
      const file = ${JSON.stringify(path.join(repo, 'scripts', 'launch.mjs'))};
      const text = fs.readFileSync(file, 'utf8');
      process.stdout.write(String(m.launchText(text, await m.emptyEnvelopeSource(${JSON.stringify(repo)})) === text));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8', timeout: 60_000 });
    // false: run `node scripts/bundle.mjs` (or `npm run build`), which rewrites the block.
    expect(r.stdout).toBe('true');
  });
});
