/**
 * `recall index`: a full re-read of the KB into its index (setting a corrupt file aside and
 * rebuilding), then note vectors when an embedding model is installed.
 */
import { errorMessage } from '../core/errors.js';
import {
  embedMissing,
  refreshLockHolder,
  tryRefreshLock,
  classifyDbError,
  closeIndex,
  rebuildIndex,
  refreshIndex,
  type RefreshReport,
} from '../sources/index/index.js';
import type { RunIo } from './command.js';
import { loadConfig } from './config/index.js';
import { openKbIndex, checkKbDir } from './kb/index.js';
import { createModelClient } from './model-client.js';
import { resolveScope, type Scope } from './scope.js';

export interface IndexCommand {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

/** `recall index`: a full re-read of the KB into its index, then note vectors when an embedding model is installed. */
export async function runIndex(
  cmd: IndexCommand,
  io: RunIo & { progress?: (done: number, total: number) => void; embedProgress?: (done: number, total: number) => void },
): Promise<{ report: RefreshReport; scope: Scope; file: string; vectors: string }> {
  const config = loadConfig(io.env);
  if (cmd.kb) checkKbDir(cmd.kb, io.cwd);
  const scope = resolveScope(config, { kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, cwd: io.cwd });
  let index = openKbIndex(config, scope.root);
  const lock = index.file === ':memory:' ? null : await waitForRefreshLock(index.file, io.warn);
  try {
    if (index.fallbackReason) io.warn(`recall: ${index.fallbackReason}`);
    let report: RefreshReport;
    const pass = (): RefreshReport =>
      refreshIndex(index, {
        force: true,
        ...(io.progress ? { onProgress: io.progress } : {}),
        ...(lock ? { onBatch: () => lock.beat() } : {}),
      });
    try {
      try {
        report = pass();
      } catch (err) {
        // Corrupt data pages are found by writing over them: set the file aside and index again.
        if (classifyDbError(err) !== 'corrupt') throw err;
        io.warn(`recall: ${index.file} is corrupt (${errorMessage(err)}); setting it aside and rebuilding`);
        index = rebuildIndex(index, config.stateDir);
        report = pass();
      }
    } catch (err) {
      const kind = classifyDbError(err, index.file);
      const hint =
        kind === 'full' ? ' (the disk is full; the index was left as it was)' : kind === 'busy' ? ' (another process is writing it)' : '';
      throw new IndexFailed(`indexing ${scope.root} failed: ${errorMessage(err)}${hint}`);
    }
    let vectors = 'no embedding model installed: vector index not built';
    const models = io.models ?? createModelClient(config, io.env).client;
    if (models.models.embed) {
      try {
        const r = await embedMissing(index, models, {
          max: Number.MAX_SAFE_INTEGER,
          ...(io.embedProgress ? { onProgress: io.embedProgress } : {}),
        });
        vectors = `${r.embedded} notes embedded with ${models.models.embed}`;
      } catch (err) {
        vectors = `vectors not built: ${errorMessage(err)}`;
      }
    }
    return { report, scope, file: index.file, vectors };
  } finally {
    lock?.release();
    closeIndex(index);
  }
}

/** `recall index` failed (disk full, corrupt beyond repair, busy): the CLI exits 1 with this message. */
export class IndexFailed extends Error {
  readonly code = 'E_INDEX_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'IndexFailed';
  }
}

/** How long `recall index` waits for a background refresher of the same index to finish. */
const INDEX_LOCK_WAIT_MS = 120_000;

async function waitForRefreshLock(file: string, warn: (l: string) => void): Promise<ReturnType<typeof tryRefreshLock>> {
  const until = Date.now() + INDEX_LOCK_WAIT_MS;
  let told = false;
  for (let free = 0; ;) {
    const lock = tryRefreshLock(file);
    if (lock) return lock;
    if (refreshLockHolder(file) === null) {
      // Nobody holds it, yet it cannot be taken twice in a row: its file cannot be written (a full
      // disk, a read-only dir). Index without it; SQLite still keeps two writers apart, and the
      // indexing reports what the disk allows.
      free += 1;
      if (free >= 2) {
        warn(`recall: cannot create the refresh lock of ${file} (disk full or not writable); indexing without it`);
        return null;
      }
      continue;
    }
    free = 0;
    if (!told) {
      warn(`recall: waiting for the refresh running in process ${refreshLockHolder(file) ?? '?'} to finish`);
      told = true;
    }
    if (Date.now() > until)
      throw new IndexFailed(`the index ${file} is being refreshed by process ${refreshLockHolder(file) ?? '?'}; try again later`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
