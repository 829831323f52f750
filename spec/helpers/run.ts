/** Run the real recall pipeline in-process against a temp KB. */
import { DEFAULT_COMMAND, runRecall, type RecallCommand, type RunResult } from '../../pipeline/run.js';
import type { ModelClient } from '../../core/ports.js';
import type { TempKb } from './kb.js';

// floor 0: these specs test retrieval and filtering; the relevance floor has specs of its own.
export const BASE_CMD: RecallCommand = { ...DEFAULT_COMMAND, format: 'json', cache: false, floor: 0 };

export interface RunOpts {
  env?: Record<string, string>;
  now?: () => number;
  models?: ModelClient;
  warn?: (l: string) => void;
}

export function recallIn(kb: TempKb, query: string, cmd: Partial<RecallCommand> = {}, opts: RunOpts = {}): Promise<RunResult> {
  return runRecall(
    { ...BASE_CMD, kb: kb.root, ...cmd, query },
    {
      env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state, REFLECT_METRICS_PATH: `${kb.state}/metrics.jsonl`, ...opts.env },
      cwd: kb.root,
      warn: opts.warn ?? (() => undefined),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.models ? { models: opts.models } : {}),
    },
  );
}

export const ids = (r: RunResult): string[] => (r.outcome?.results ?? []).map((c) => c.note.key);
