/**
 * A session's KB index: opened for the scope, refreshed within the caller's budget (the rest goes
 * to a background refresher), and new notes embedded, each problem recorded as a degradation.
 */
import { errorMessage } from '../../core/errors.js';
import type { ModelClient } from '../../core/ports.js';
import type { Degradation } from '../../core/types.js';
import { embedMissing, refreshWithin, classifyDbError, type IndexHandle } from '../../sources/index/index.js';
import type { IndexOpener, RunIo, ScopedIndex } from '../command.js';
import type { RecallConfig } from '../config/index.js';
import { openKbIndex } from '../kb/index.js';

/**
 * A caller with a deadline (a hook) refreshes the index for at most this long, and at most half
 * the time left: a harness may kill a hook long before its own deadline, and what the refresh
 * cannot do by then is handed to a detached background refresher early enough to survive that
 * kill. Small edits take milliseconds; a cold 20k-note KB takes ~10 s and goes to the background.
 */
const REFRESH_BUDGET_MS = 1000;
const REFRESH_SHARE = 0.5;

export type { IndexOpener, ScopedIndex } from '../command.js';

/**
 * How a one-shot process gets a session's index: opened and refreshed every time. The recall
 * server passes its own opener instead (RunIo.openIndex: indexes kept open, refreshed only where
 * its file watcher saw a change).
 */
export const openAndRefresh: IndexOpener = (config, scope, io, verbose, deadlineMs, now) =>
  refreshScoped(openKbIndex(config, scope.root), io, verbose, deadlineMs, now);

/** Refresh an opened index the way every recall does (bounded by the caller's deadline). */
export function refreshScoped(
  index: IndexHandle,
  io: RunIo,
  verbose: boolean,
  deadlineMs: number | undefined,
  now: () => number,
): ScopedIndex {
  const degraded: Degradation[] = [];
  if (index.fallbackReason) {
    io.warn(`recall: ${index.fallbackReason}`);
    degraded.push({ stage: 'index', reason: 'error', message: index.fallbackReason });
  }
  const t = now();
  const out = refreshWithin(index, {
    problems: verbose,
    ...(deadlineMs !== undefined ? { deadlineMs: t + Math.min(REFRESH_BUDGET_MS, Math.max(0, deadlineMs - t) * REFRESH_SHARE) } : {}),
    backgroundEnv: io.env,
    now,
  });
  for (const n of out.notices)
    degraded.push({ stage: 'index', reason: out.report.complete || out.background ? 'unavailable' : 'error', message: n });
  if (verbose) for (const p of out.report.problems) io.warn(`recall: skipped ${p.rel}: ${p.message}`);
  if (verbose) for (const p of out.report.warnings) io.warn(`recall: warning ${p.rel}: ${p.message}`);
  return { index, refresh: out.report, degraded };
}

/** A degradation that says the index itself failed with corruption (the next open checks and heals it). */
export const corruptionSeen = (degraded: readonly Degradation[]): boolean =>
  degraded.some((d) => d.stage !== 'index' && classifyDbError({ message: d.message }) === 'corrupt');

/** Notes embedded per recall at most; the rest wait for `recall index` (a hook must stay fast). */
const EMBED_PER_RECALL = 32;

/** Embed notes added or edited since the last run (bounded); a failure or a backlog is a degradation. */
export async function embedNewNotes(
  index: IndexHandle,
  models: ModelClient,
  config: RecallConfig,
  budgetMs = Infinity,
): Promise<Degradation | null> {
  if (!models.models.embed || index.file === ':memory:') return null;
  try {
    const report = await embedMissing(index, models, {
      max: EMBED_PER_RECALL,
      budgetMs: Math.max(1, Math.min(config.embedTimeoutMs, budgetMs)),
    });
    return report.remaining > 0
      ? { stage: 'vector-index', reason: 'unavailable', message: `${report.remaining} notes have no vector yet (run \`recall index\`)` }
      : null;
  } catch (err) {
    return { stage: 'vector-index', reason: 'error', message: `embedding new notes failed: ${errorMessage(err)}` };
  }
}
