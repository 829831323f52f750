/** `recall view`: the local web view of sessions, injections, abstentions, helpfulness and notes, with note actions. */
import type { Argv, CommandModule } from 'yargs';
import { requireNumber } from '../options.js';
import { SCOPE_OPTIONS, oneKb, type CliIo } from '../shared.js';

export function viewCommand(io: CliIo): CommandModule {
  return {
    command: 'view',
    describe:
      'A local web page (127.0.0.1; the printed URL carries a token) of what recall injected per session and whether it was used, and of every note, with actions to edit, supersede or forget one',
    builder: (y: Argv) =>
      y.options({
        ...SCOPE_OPTIONS,
        port: { requiresArg: true, describe: 'port to listen on (default: a free one)' },
        open: { type: 'boolean', default: true, describe: 'open the page in the browser (--no-open: just print the URL)' },
      }),
    handler: async (a) => {
      const port = requireNumber('port', a['port'], { min: 0, max: 65535, integer: true }) ?? 0;
      const kb = oneKb(a, 'view');
      // The sources a hook here reads, checked before serving: a page of a KB that is not there helps no one.
      const { commandSources } = await import('../../pipeline/kb-sources/index.js');
      commandSources(kb, io);
      const { runView } = await import('../view/index.js');
      await runView({ kb, port, open: a['open'] !== false }, io);
    },
  };
}
