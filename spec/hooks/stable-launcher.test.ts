/**
 * Hooks installed by `recall hooks install` outlive the folder they were installed from (issue 37,
 * items 3 and 4). The Claude Code plugin lives in a versioned cache folder that an update replaces
 * and an uninstall removes; hooks wired for Codex or Copilot from it pointed there and then exited 1
 * with MODULE_NOT_FOUND, while `recall status` still listed them as wired. Here an "install" is a
 * folder in a fake plugin cache whose scripts/launch.mjs answers a marker envelope; the real hook
 * commands written by the install are run through sh with hook JSON on stdin, as the harness runs them.
 *
 * And Codex's own plugin (`codex plugin add recall@recall`, recorded in $CODEX_HOME/config.toml)
 * already runs recall's hooks: a `recall hooks install --harness codex` beside it is a no-op that says
 * why, and status names the plugin and a second wiring made before.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { applyChanges, describeChanges, planInstall, targets, type InstallOptions } from '../../hooks/install/install.js';
import { hookWiring } from '../../hooks/install/wiring-status.js';
import { launcherChanges, launcherDir } from '../../hooks/install/stable-launcher.js';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** A fake recall install whose launcher prints `{"marker": "<version>"}` for any hook. */
function fakeInstall(root: string, version: string): void {
  fs.mkdirSync(path.join(root, 'scripts'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'scripts', 'launch.mjs'),
    `process.stdin.resume(); process.stdin.on('end', () => process.stdout.write(JSON.stringify({ marker: ${JSON.stringify(version)}, argv: process.argv.slice(2) }) + '\\n'));\n`,
  );
}

function world(harness: InstallOptions['harness']) {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-launcher-')));
  const home = path.join(dir, 'home');
  const cache = path.join(home, '.claude', 'plugins', 'cache', 'recall', 'recall');
  const root = path.join(cache, '0.1.0');
  fakeInstall(root, '0.1.0');
  const o: InstallOptions = {
    harness,
    scope: 'user',
    mcp: false,
    skill: false,
    env: { HOME: home },
    cwd: path.join(dir, 'project'),
    root,
    // As the CLI installs: the commands run the stable launcher, written with the hooks.
    commandRoot: launcherDir({ HOME: home }, home),
  };
  /** Run the command the install wrote for `event`, as the harness does: sh, hook JSON on stdin. */
  const runHook = (event: string, input: object) => {
    const file = targets(o).hooks;
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks: Record<string, any[]> };
    const entry = doc.hooks[event]![0]!;
    const command: string = harness === 'copilot' ? entry.bash : entry.hooks[0].command;
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, ...(harness === 'copilot' ? entry.env : {}) };
    const r = spawnSync('sh', ['-c', command], { input: JSON.stringify(input), env, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, command };
  };
  return { home, cache, root, o, runHook };
}

const install = (o: InstallOptions): string => {
  const planned = planInstall(o, true);
  const launcher = o.commandRoot && !planned.some((c) => c.skippedBecause) ? launcherChanges(o.root, o.env, o.env['HOME']!) : [];
  const changes = [...launcher, ...planned];
  return describeChanges(changes, o, false, true, applyChanges(changes));
};

describe('hooks that outlive their install folder', () => {
  it.each(['codex', 'copilot'] as const)(
    '%s: run the install, then the updated version, then answer empty with exit 0 once it is gone',
    (harness) => {
      const w = world(harness);
      install(w.o);
      const event = harness === 'copilot' ? 'userPromptTransformed' : 'UserPromptSubmit';
      const input = { session_id: 's1', hook_event_name: 'UserPromptSubmit', cwd: dir, prompt: 'why is redis slow' };
      const first = w.runHook(event, input);
      // The command names the launcher in the state dir, not the versioned plugin folder.
      expect(first.command).toContain(path.join(launcherDir(w.o.env, w.home), 'scripts', 'launch.mjs'));
      expect(first.command).not.toContain('0.1.0');
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(first.stdout)).toEqual({ marker: '0.1.0', argv: ['hook', 'user-prompt-submit'] });
      expect(hookWiring(w.o.env, w.o.cwd).find((h) => h.harness === harness)?.stale).toBeUndefined();

      // A plugin update: Claude Code marks the old version folder orphaned (and deletes it later) and
      // installs the new one beside it; the hooks run the new one at once, then once the old is gone.
      fakeInstall(path.join(w.cache, '0.2.0'), '0.2.0');
      fs.writeFileSync(path.join(w.root, '.orphaned_at'), String(Date.now()));
      expect(JSON.parse(w.runHook(event, input).stdout)).toMatchObject({ marker: '0.2.0' });
      fs.rmSync(w.root, { recursive: true });
      expect(JSON.parse(w.runHook(event, input).stdout)).toMatchObject({ marker: '0.2.0' });
      expect(hookWiring(w.o.env, w.o.cwd).find((h) => h.harness === harness)?.stale).toBeUndefined();

      // The plugin uninstalled: one valid empty envelope, exit 0, nothing on stderr, the reason logged.
      fs.rmSync(w.cache, { recursive: true });
      const gone = w.runHook(event, input);
      expect({ code: gone.code, stderr: gone.stderr }).toEqual({ code: 0, stderr: '' });
      const lines = gone.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toEqual(
        harness === 'copilot' ? {} : { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '' } },
      );
      const log = fs.readFileSync(path.join(w.home, '.reflect', 'logs', 'user-prompt-submit.log'), 'utf8');
      expect(log).toContain(`the recall install these hooks run is gone (${w.root})`);
      expect(log).toContain(`recall hooks install --harness ${harness}`);
      // Status says the wiring is stale, and how to fix it.
      const wiring = hookWiring(w.o.env, w.o.cwd).find((h) => h.harness === harness)!;
      expect(wiring.stale).toBe(`the recall install it runs (${w.root}) is gone`);
    },
  );

  it('a hook wired before this change (the versioned folder in the command) is reported stale once the folder is gone', () => {
    const w = world('codex');
    install({ ...w.o, commandRoot: undefined });
    expect(hookWiring(w.o.env, w.o.cwd).find((h) => h.harness === 'codex')?.stale).toBeUndefined();
    fs.rmSync(w.root, { recursive: true });
    expect(hookWiring(w.o.env, w.o.cwd).find((h) => h.harness === 'codex')?.stale).toBe(
      `${path.join(w.root, 'scripts', 'launch.mjs')} is gone`,
    );
  });
});

describe("Codex's own recall plugin", () => {
  /** $CODEX_HOME/config.toml as `codex plugin add recall@recall` (Codex 0.171.0) leaves it. */
  const withPlugin = (home: string, enabled = true): void => {
    fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.codex', 'config.toml'),
      `[marketplaces.recall]\nsource_type = "local"\nsource = "/tmp/market"\n\n[plugins."recall@recall"]\nenabled = ${enabled}\n`,
    );
  };

  it('makes `recall hooks install --harness codex` a no-op that says why', () => {
    const w = world('codex');
    withPlugin(w.home);
    const out = install(w.o);
    expect(out).toContain(`nothing changed: Codex's plugin recall@recall (${path.join(w.home, '.codex', 'config.toml')})`);
    expect(out).toContain('would run recall twice per prompt');
    expect(fs.existsSync(targets(w.o).hooks)).toBe(false);
    // A disabled plugin runs nothing: the hooks are wired.
    withPlugin(w.home, false);
    install(w.o);
    expect(fs.existsSync(targets(w.o).hooks)).toBe(true);
  });

  it('a second wiring made before the plugin is named, with the command that removes it', () => {
    const w = world('codex');
    install(w.o);
    withPlugin(w.home);
    const out = install(w.o);
    expect(out).toContain('recall runs twice now: remove the second wiring with `recall hooks uninstall --harness codex`');
  });
});
