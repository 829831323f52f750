/** `recall team <action>`: share learnings through a PostgreSQL team store. */
import type { Argv, CommandModule } from 'yargs';
import { SCOPE_OPTIONS } from '../options.js';
import { serviceIo, type CliIo } from '../shared.js';

const ACTIONS = ['init', 'push', 'pull', 'trust', 'status', 'history'] as const;

function teamBuilder(y: Argv): Argv {
  return y
    .positional('action', { choices: ACTIONS, describe: ACTIONS.join(' | ') })
    .positional('args', { type: 'string', array: true })
    .options(SCOPE_OPTIONS)
    .option('url', { type: 'string', describe: 'init: the store, postgres://user@host:port/db (the password is never saved)' })
    .option('schema', { type: 'string', describe: 'init: schema name in the database (default recall)' })
    .option('machine', { type: 'string', describe: 'init: name of this machine in the store (default the host name)' })
    .option('grant', { type: 'string', array: true, describe: 'init: role(s) that may push and pull' })
    .option('grant-read', { type: 'string', array: true, describe: 'init: role(s) that may only pull' })
    .option('share-all', { type: 'string', array: true, describe: 'init: KB folder(s) that share every note, not only `share: team` ones' })
    .option('all', { type: 'boolean', default: false, describe: 'push: share every note of this KB (not only `share: team`)' })
    .option('full', { type: 'boolean', default: false, describe: 'pull: re-read the whole store' })
    .option('index', { type: 'boolean', default: true, describe: "pull: refresh the current KB's index afterwards (--no-index to skip)" })
    .option('authority', { type: 'string', describe: "trust: authority of the author's notes: advisory (default), promoted, law" })
    .option('remove', { type: 'boolean', default: false, describe: 'trust: stop trusting AUTHOR' })
    .option('probe', { type: 'boolean', default: true, describe: 'status: also ask the server (--no-probe: local facts only)' })
    .option('json', { type: 'boolean', default: false, describe: 'status: machine-readable output' });
}

export function teamCommand(io: CliIo): CommandModule {
  return {
    command: 'team <action> [args..]',
    describe: 'Share learnings through a PostgreSQL team store: init | push | pull | trust [AUTHOR] | status | history ID',
    builder: teamBuilder,
    handler: async (a) => {
      const { runTeamCommand } = await import('../team/team.js');
      const progress = io.isTty ? { progress: (l: string) => io.stderr(`\r${l.padEnd(40)}`) } : {};
      io.stdout(await runTeamCommand(a, { ...serviceIo(io), ...progress }));
    },
  };
}
