/**
 * `recall hook <name>` (a hook entry point: bin/recall's thin client, client/client.ts, answers it
 * before the CLI loads; this module gives it help and a usage error) and
 * `recall hooks [config|install|uninstall]`.
 */
import os from 'node:os';
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
      if (action === 'config') return io.stdout(hooksConfig(harness));
      const m = await import('../../hooks/install/install.js');
      const { launcherChanges, launcherDir } = await import('../../hooks/install/stable-launcher.js');
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
        commandRoot: launcherDir(io.env, io.env['HOME'] || os.homedir()),
      };
      const planned = m.planInstall(o, install);
      // The launcher is written with the hooks that run it (not when the install changes nothing, as beside Codex's plugin).
      const launcher =
        install && !planned.some((c) => c.skippedBecause) ? launcherChanges(o.root, io.env, io.env['HOME'] || os.homedir()) : [];
      const changes = [...launcher, ...planned];
      const backups = dryRun ? [] : m.applyChanges(changes);
      io.stdout(m.describeChanges(changes, o, dryRun, install, backups));
    },
  };
}
