/**
 * The index access of the staged steps: the sources a hook in this folder reads (pipeline/kb-sources),
 * each index opened, brought up to date and closed again, one at a time.
 */
import fs from 'node:fs';
import { loadConfig } from '../../pipeline/config/index.js';
import { resolveSources } from '../../pipeline/kb-sources/index.js';
import { scopeHolding } from '../../pipeline/id-scope.js';
import { checkKbDir, openKbIndex } from '../../pipeline/run.js';
import type { Scope } from '../../pipeline/scope.js';
import { refreshWithin, closeIndex, type IndexHandle } from '../../sources/index/index.js';
import type { StagesIo, StagesScope } from './types.js';

/**
 * Resolve the KB like recall does, open and refresh its index, run `fn`, close the index. With no KB
 * configured the staged steps read one index: the first zero-config source (pipeline/kb-sources), or
 * with `holds`, the first whose index holds what the step looks for (pipeline/id-scope).
 */
export function withLiveIndex<T>(
  opts: StagesScope,
  io: StagesIo,
  fn: (h: IndexHandle, scope: Scope) => T,
  holds?: (h: IndexHandle) => boolean,
): T {
  const config = loadConfig(io.env);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const read = resolveSources(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd, env: io.env }).read;
  const scope = holds ? scopeHolding(config, read, io.env, holds) : read[0]!;
  const h = openKbIndex(config, scope.root);
  try {
    if (h.fallbackReason) io.warn(`recall: ${h.fallbackReason}`);
    for (const n of refreshWithin(h, { problems: false, backgroundEnv: io.env }).notices) io.warn(`recall: ${n}`);
    return fn(h, scope);
  } finally {
    closeIndex(h);
  }
}

/** Run `fn` on the index of each source a hook here reads that exists, in order, one index open at a time. */
export function withEachLiveIndex(opts: StagesScope, io: StagesIo, fn: (h: IndexHandle, scope: Scope) => void): void {
  const config = loadConfig(io.env);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const read = resolveSources(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd, env: io.env }).read;
  for (const scope of read) {
    if (read.length > 1 && !fs.existsSync(scope.root)) continue;
    const h = openKbIndex(config, scope.root);
    try {
      if (h.fallbackReason) io.warn(`recall: ${h.fallbackReason}`);
      for (const n of refreshWithin(h, { problems: false, backgroundEnv: io.env }).notices) io.warn(`recall: ${n}`);
      fn(h, scope);
    } finally {
      closeIndex(h);
    }
  }
}
