/**
 * Everything `recall hooks` writes for another harness runs recall through the stable launcher in
 * the state dir, never through the folder recall was installed from (issue 37, item 3): the printed
 * config (`recall hooks config`), the installed hooks, MCP entry and skill. An install folder may be
 * a plugin's versioned cache folder that the next update removes. And `recall hooks uninstall` takes
 * the launcher away once no wiring uses it, without touching a file recall did not write there.
 * The real CLI (bin/recall) in a fresh HOME.
 */
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repo } from '../helpers/zero-config.js';
import { driverEnv } from '../helpers/driver.js';

let dir = '';
let home = '';
let launcher = '';
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-launcher-life-')));
  home = path.join(dir, 'home');
  fs.mkdirSync(home);
  launcher = path.join(home, '.reflect', 'launcher');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function recall(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(path.join(repo, 'bin', 'recall'), args, {
    env: { PATH: process.env['PATH'] ?? '', HOME: home, ...driverEnv() },
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const launch = (): string => path.join(launcher, 'scripts', 'launch.mjs');
const installPath = path.join(repo, 'scripts', 'launch.mjs');

describe('recall hooks config', () => {
  it.each(['claude', 'codex', 'copilot'])(
    'prints %s hooks that run the stable launcher, not the install folder',
    (harness) => {
      const r = recall(['hooks', 'config', '--harness', harness]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(launch());
      expect(r.stdout).not.toContain(installPath);
      // Print-only writes nothing, and says the launcher is written by install.
      expect(fs.existsSync(launch())).toBe(false);
      expect(r.stderr).toContain(`recall hooks install --harness ${harness}`);
    },
    60_000,
  );

  it('says nothing more once the launcher is there', () => {
    expect(recall(['hooks', 'install', '--harness', 'codex']).code).toBe(0);
    const r = recall(['hooks', 'config', '--harness', 'codex']);
    expect(r.stdout).toContain(launch());
    expect(r.stderr).toBe('');
  }, 60_000);
});

describe('recall hooks install', () => {
  it('the skill and MCP entry for Copilot run the launcher too', () => {
    expect(recall(['hooks', 'install', '--harness', 'copilot', '--mcp']).code).toBe(0);
    const skill = fs.readFileSync(path.join(home, '.copilot', 'skills', 'recall', 'SKILL.md'), 'utf8');
    expect(skill).toContain(`node ${launch()} recall "postgres connection pool exhausted in pytest"`);
    expect(skill).not.toContain(repo);
    const mcp = fs.readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8');
    expect(mcp).toContain(launch());
    expect(mcp).not.toContain(repo);
  }, 60_000);
});

describe('recall hooks uninstall', () => {
  it('removes the launcher with the last wiring that uses it, and keeps a file recall did not write', () => {
    expect(recall(['hooks', 'install', '--harness', 'codex']).code).toBe(0);
    expect(recall(['hooks', 'install', '--harness', 'copilot', '--mcp']).code).toBe(0);
    const mine = path.join(launcher, 'my-notes.txt');
    fs.writeFileSync(mine, 'mine\n');
    const first = recall(['hooks', 'uninstall', '--harness', 'copilot']);
    expect(first.code).toBe(0);
    // Codex's hooks still run it.
    expect(fs.existsSync(launch())).toBe(true);
    expect(first.stdout).not.toContain(launch());
    const last = recall(['hooks', 'uninstall', '--harness', 'codex']);
    expect(last.code).toBe(0);
    expect(fs.existsSync(launch())).toBe(false);
    expect(fs.existsSync(path.join(launcher, 'install.json'))).toBe(false);
    expect(fs.existsSync(path.join(launcher, 'scripts'))).toBe(false);
    expect(last.stdout).toContain(`removed ${launch()}`);
    expect(fs.readFileSync(mine, 'utf8')).toBe('mine\n');
  }, 120_000);

  it("keeps the launcher another harness still runs when the home folder's name has a quote", () => {
    home = path.join(dir, "o'brien");
    fs.mkdirSync(home);
    launcher = path.join(home, '.reflect', 'launcher');
    expect(recall(['hooks', 'install', '--harness', 'claude', '--no-skill']).code).toBe(0);
    expect(recall(['hooks', 'install', '--harness', 'codex', '--no-skill']).code).toBe(0);
    expect(recall(['hooks', 'uninstall', '--harness', 'claude']).code).toBe(0);
    // Codex's hooks still run it.
    expect(fs.existsSync(launch())).toBe(true);
    expect(recall(['hooks', 'uninstall', '--harness', 'codex']).code).toBe(0);
    expect(fs.existsSync(launch())).toBe(false);
  }, 120_000);

  it('removes it when nothing is left, and a dry run only says so', () => {
    expect(recall(['hooks', 'install', '--harness', 'copilot']).code).toBe(0);
    const dry = recall(['hooks', 'uninstall', '--harness', 'copilot', '--dry-run']);
    expect(dry.stdout).toContain(`would change ${launch()}`);
    expect(fs.existsSync(launch())).toBe(true);
    expect(recall(['hooks', 'uninstall', '--harness', 'copilot']).code).toBe(0);
    expect(fs.existsSync(launcher)).toBe(false);
  }, 60_000);

  it('keeps the launcher while a project-scope wiring made elsewhere still runs it', () => {
    const project = path.join(dir, 'proj');
    fs.mkdirSync(project);
    const r = spawnSync(path.join(repo, 'bin', 'recall'), ['hooks', 'install', '--harness', 'copilot', '--scope', 'project'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: home, ...driverEnv() },
      cwd: project,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(recall(['hooks', 'install', '--harness', 'codex']).code).toBe(0);
    expect(recall(['hooks', 'uninstall', '--harness', 'codex']).code).toBe(0);
    expect(fs.existsSync(launch())).toBe(true);
  }, 120_000);

  it('keeps a launcher whose record lists no wiring (written before the list: a project elsewhere may run it)', () => {
    expect(recall(['hooks', 'install', '--harness', 'codex']).code).toBe(0);
    const record = path.join(launcher, 'install.json');
    const { root } = JSON.parse(fs.readFileSync(record, 'utf8')) as { root: string };
    fs.writeFileSync(record, `${JSON.stringify({ root })}\n`);
    expect(recall(['hooks', 'uninstall', '--harness', 'codex']).code).toBe(0);
    expect(fs.existsSync(launch())).toBe(true);
  }, 60_000);

  it('leaves a launch.mjs recall did not write', () => {
    fs.mkdirSync(path.join(launcher, 'scripts'), { recursive: true });
    fs.writeFileSync(launch(), '// somebody else\n');
    fs.writeFileSync(path.join(launcher, 'install.json'), '{"mine": true}\n');
    expect(recall(['hooks', 'uninstall', '--harness', 'codex']).code).toBe(0);
    expect(fs.readFileSync(launch(), 'utf8')).toBe('// somebody else\n');
    expect(fs.readFileSync(path.join(launcher, 'install.json'), 'utf8')).toBe('{"mine": true}\n');
  }, 60_000);
});
