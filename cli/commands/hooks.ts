/**
 * `recall hook <name>` (a hook entry point: bin/recall's thin client, client/client.ts, answers it
 * before the CLI loads; this module gives it help and a usage error) and
 * `recall hooks [config|install|uninstall]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { HOOK_NAMES } from '../../hooks/hook-table.js';
import { UsageError } from '../../core/errors.js';
import { HARNESSES } from '../../hooks/install/index.js';
import { actionOf, type CliIo } from '../shared.js';

export function hookCommand(): CommandModule {
  return {
    command: 'hook <name>',
    describe: `Run a hook entry point: ${HOOK_NAMES.join(' | ')} (hook JSON on stdin)`,
    builder: (y: Argv) => y.positional('name', { choices: HOOK_NAMES }),
    // Only the thin client runs a hook (it reads the call's settings and deadline once, where the
    // process starts); the CLI's own bundle run directly has no hook path of its own.
    handler: () => {
      throw new UsageError('a hook runs through bin/recall or scripts/launch.mjs: `recall hook <name>` with the hook JSON on stdin');
    },
  };
}

/**
 * `recall hooks config`: the wiring install writes, which runs the stable launcher (it outlives this
 * install's folder); print-only, so when the launcher is not there yet it says what writes it.
 */
function printConfig(io: CliIo, config: string, harness: string, stable: string): void {
  io.stdout(config);
  const launch = path.join(stable, 'scripts', 'launch.mjs');
  if (!fs.existsSync(launch))
    io.stderr(
      `recall: these commands run ${launch}, which is not there yet; \`recall hooks install --harness ${harness}\` writes it (and merges this wiring for you)\n`,
    );
}

export function hooksCommand(io: CliIo): CommandModule {
  return {
    command: 'hooks [action]',
    describe: 'Hook wiring for a harness: `config` prints it; `install` / `uninstall` merge it into the harness settings (backup first)',
    builder: (y: Argv) =>
      y
        .positional('action', { choices: ['config', 'install', 'uninstall'] as const })
        .option('harness', { choices: HARNESSES, default: 'claude' as const })
        .option('scope', {
          choices: ['user', 'project'] as const,
          default: 'user' as const,
          describe: 'user settings, or the project in the current folder',
        })
        .option('dry-run', { type: 'boolean', default: false, describe: 'print what would change, write nothing' })
        .option('mcp', { type: 'boolean', default: false, describe: 'also register `recall mcp` as an MCP server' })
        .option('skill', { type: 'boolean', default: true, describe: 'also install the recall skill (--no-skill to skip)' }),
    handler: async (a) => {
      const action = actionOf(a, 'hooks', ['config', 'install', 'uninstall']);
      const harness = a['harness'] as (typeof HARNESSES)[number];
      const { hooksConfig, installRoot } = await import('../../hooks/install/harness-config.js');
      const { launcherChanges, launcherDir } = await import('../../hooks/install/stable-launcher.js');
      const stable = launcherDir(io.env, io.env['HOME'] || os.homedir());
      if (action === 'config') return printConfig(io, hooksConfig(harness, stable), harness, stable);
      const m = await import('../../hooks/install/install.js');
      const { launcherRemoval, launcherUsers } = await import('../../hooks/install/launcher-users.js');
      const install = action === 'install';
      const dryRun = a['dry-run'] === true;
      const o = {
        harness,
        scope: a['scope'] as 'user' | 'project',
        mcp: a['mcp'] === true,
        skill: a['skill'] !== false,
        env: io.env,
        cwd: io.cwd,
        root: installRoot(),
        // Hooks run through a launcher in the state dir, which outlives this install's folder (a
        // plugin update or uninstall, a moved clone): see hooks/install/stable-launcher.ts.
        commandRoot: stable,
      };
      const planned = m.planInstall(o, install);
      // The launcher is written with the hooks that run it (not when the install changes nothing, as
      // beside Codex's plugin), recording every file wired to it; it goes with the last of them.
      const skipped = planned.some((c) => c.skippedBecause);
      const home = io.env['HOME'] || os.homedir();
      const launcher = skipped
        ? []
        : install
          ? launcherChanges(o.root, io.env, home, launcherUsers(stable, planned, o))
          : launcherRemoval(stable, planned, o);
      const changes = install ? [...launcher, ...planned] : [...planned, ...launcher];
      const backups = dryRun ? [] : m.applyChanges(changes);
      io.stdout(m.describeChanges(changes, o, dryRun, install, backups));
    },
  };
}
