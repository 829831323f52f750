/**
 * Which of the KBs a recall reads holds a note id. With no KB configured, a recall reads several
 * sources together (pipeline/kb-sources: the reflect KB, the project's Claude Code memory, ...), so an
 * id shown in an injected block may come from any of them; `show`, `stages`, `explain --id` and MCP
 * hydrate look it up in each, in the order a recall reads them, instead of the first source only.
 */
import fs from 'node:fs';
import type { RecallConfig } from './config/index.js';
import type { Scope } from './scope.js';
import { openKbIndex } from './kb/index.js';
import { closeIndex, type IndexHandle, refreshWaiting } from '../sources/index/index.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long a probe waits for another process refreshing an index before reading the last committed one. */
const PROBE_REFRESH_WAIT_MS = 5_000;

/**
 * The first of `scopes` whose index `holds` the id; the first scope when none does (its answer then
 * names the KB a configured recall reads). A single scope is returned without opening anything.
 */
export function scopeHolding(config: RecallConfig, scopes: readonly Scope[], env: Env, holds: (h: IndexHandle) => boolean): Scope {
  if (scopes.length < 2) return scopes[0]!;
  for (const scope of scopes) {
    if (!fs.existsSync(scope.root)) continue;
    const h = openKbIndex(config, scope.root);
    try {
      refreshWaiting(h, PROBE_REFRESH_WAIT_MS);
      if (holds(h)) return scope;
    } finally {
      closeIndex(h);
    }
  }
  return scopes[0]!;
}
