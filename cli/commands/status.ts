/** `recall status` (alias `doctor`): which KB this directory reads and why, and the health around it. */
import type { Argv, CommandModule } from 'yargs';
import { JSON_OPTION, SCOPE_OPTIONS, jsonText, oneKb, type CliIo } from '../shared.js';

export function statusCommand(io: CliIo): CommandModule {
  return {
    command: 'status',
    aliases: ['doctor'],
    describe: 'Which KB this directory reads and why; notes, skipped notes, index, models, daemon, hook wiring, logs',
    builder: (y: Argv) => y.options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: async (a) => {
      const { collectStatus, formatStatus } = await import('../status-report.js');
      const report = await collectStatus(oneKb(a, 'status'), { env: io.env, cwd: io.cwd });
      io.stdout(a['json'] ? jsonText(report) : formatStatus(report));
    },
  };
}
