/**
 * `recall team init | push | pull | trust | status | history`: sharing learnings between machines
 * through a PostgreSQL team store. The work is done by pipeline/team-*.ts; this module turns the
 * parsed arguments into their options and their reports into text.
 */
import { UsageError } from '../../core/errors.js';
import { teamInit, teamPush, teamPull, teamHistory, teamStatus, teamTrust, type TeamIo } from '../../pipeline/team/index.js';
import { formatInit, formatPull, formatPush, formatStatus, formatTrust } from './format.js';

export type { TeamIo } from '../../pipeline/team/index.js';
export { PULL_PAGE } from '../../pipeline/team/index.js';
export { teamInit, type InitOptions, type InitReport } from '../../pipeline/team/index.js';
export { shareMark, teamPush, type PushOptions, type PushReport } from '../../pipeline/team/index.js';
export { teamPull, type PullOptions, type PullReport } from '../../pipeline/team/index.js';
export { teamHistory, teamStatus, teamTrust, type TeamStatus, type TrustReport } from '../../pipeline/team/index.js';
export { formatInit, formatPull, formatPush, formatStatus, formatTrust } from './format.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);

export async function runTeamCommand(a: Record<string, unknown>, io: TeamIo): Promise<string> {
  const args = strings(a['args']);
  const scope = { kb: (a['kb'] as string | undefined) ?? null, global: a['global'] === true, allBranches: a['all-branches'] === true };
  switch (a['action']) {
    case 'init':
      return formatInit(
        await teamInit(
          {
            ...(a['url'] ? { url: String(a['url']) } : {}),
            ...(a['schema'] ? { schema: String(a['schema']) } : {}),
            ...(a['machine'] ? { machine: String(a['machine']) } : {}),
            grant: strings(a['grant']),
            grantRead: strings(a['grant-read']),
            shareAll: strings(a['share-all']),
          },
          io,
        ),
      );
    case 'push':
      return formatPush(await teamPush({ ...scope, all: a['all'] === true }, io));
    case 'pull':
      return formatPull(await teamPull({ full: a['full'] === true, index: a['index'] !== false, kb: scope.kb }, io));
    case 'trust':
      if (args.length > 1) throw new UsageError('trust takes one AUTHOR');
      return formatTrust(
        teamTrust(args[0] ?? null, { remove: a['remove'] === true, ...(a['authority'] ? { authority: String(a['authority']) } : {}) }, io),
      );
    case 'status': {
      const s = await teamStatus(io.env, { probe: a['probe'] !== false });
      return a['json'] === true ? `${JSON.stringify(s, null, 2)}\n` : formatStatus(s);
    }
    case 'history':
      if (args.length !== 1) throw new UsageError('history takes one note ID');
      return teamHistory(args[0]!, io);
    default:
      throw new UsageError(`unknown team action ${JSON.stringify(a['action'])}`);
  }
}
