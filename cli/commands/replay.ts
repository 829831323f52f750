/**
 * `recall replay [log]`: re-run logged recalls against the current KB and settings. Override flags
 * are checked by yargs before the command runs, with the same rules and messages as the recall
 * options they override.
 */
import type { Argv, CommandModule } from 'yargs';
import type { RecallCommand } from '../../pipeline/run.js';
import { confidenceOf, lastValue, requireNumber, tagsOf } from '../options.js';
import { jsonText, serviceIo, ttyProgress, type CliIo, type ExitStatus } from '../shared.js';

/** The recall options every replayed recall takes instead of its logged ones. Throws UsageError on a bad value. */
export function replayOverrides(a: Record<string, unknown>): Partial<RecallCommand> {
  const o: Partial<RecallCommand> = {};
  if (a['results'] !== undefined) o.limit = requireNumber('results', a['results'], { min: 1, integer: true })!;
  if (a['confidence'] !== undefined) o.confidence = confidenceOf(a['confidence']);
  if (a['min-overlap'] !== undefined) o.minOverlap = requireNumber('min-overlap', a['min-overlap'], { min: 0, max: 1 })!;
  if (a['max-tokens'] !== undefined) o.maxTokens = requireNumber('max-tokens', a['max-tokens'], { min: 0, integer: true })!;
  if (a['tags'] !== undefined) o.tags = tagsOf(a['tags']);
  if (a['mmr'] !== undefined) o.mmr = a['mmr'] === true;
  return o;
}

const replayLimit = (a: Record<string, unknown>): number | undefined => requireNumber('limit', a['limit'], { min: 1, integer: true });

function replayBuilder(y: Argv): Argv {
  return y
    .positional('log', { type: 'string', describe: 'recall log (default <state dir>/recall_log.jsonl)' })
    .option('since', { type: 'string', describe: 'only recalls logged on or after this date' })
    .option('limit', { requiresArg: true, describe: 'only the last N logged recalls' })
    .option('fail-on-change', { type: 'boolean', default: false, describe: 'exit 1 when any result would change (CI for KB edits)' })
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable report' })
    .option('results', { requiresArg: true, describe: 'override --limit of every replayed recall' })
    .option('confidence', { type: 'string', describe: 'override --confidence' })
    .option('min-overlap', { requiresArg: true, describe: 'override --min-overlap' })
    .option('max-tokens', { requiresArg: true, describe: 'override --max-tokens' })
    .option('tags', { type: 'string', describe: 'override --tags' })
    .option('mmr', { type: 'boolean', describe: 'override MMR (--no-mmr)' })
    .check((a) => {
      replayOverrides(a);
      replayLimit(a);
      return true;
    });
}

export function replayCommand(io: CliIo, exit: ExitStatus): CommandModule {
  return {
    command: 'replay [log]',
    describe: 'Re-run logged recalls against the current KB and settings and report what would change',
    builder: replayBuilder,
    handler: async (a) => {
      const { runReplay, formatReplay } = await import('../replay/replay.js');
      const limit = replayLimit(a);
      const progress = ttyProgress(io, 'replayed');
      const report = await runReplay(
        {
          ...(a['log'] ? { log: a['log'] as string } : {}),
          ...(a['since'] ? { since: String(lastValue(a['since'])) } : {}),
          ...(limit !== undefined ? { limit } : {}),
          overrides: replayOverrides(a),
          ...(progress ? { progress } : {}),
        },
        serviceIo(io),
      );
      io.stdout(a['json'] ? jsonText(report) : formatReplay(report));
      if (a['fail-on-change'] && report.changed > 0) exit.code = 1;
    },
  };
}
