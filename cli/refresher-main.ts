/**
 * Process entry of the background index refresher, started detached by a recall whose index refresh
 * reached its deadline:   node dist/bundle/refresher.mjs --kb ROOT
 * It takes the index's refresh lock (exits at once when another process holds it), finishes the
 * refresh in committed batches and exits. Settings (state dir, link policy) come from the environment.
 */
import { loadConfig } from '../pipeline/config/index.js';
import { closeIndex, refreshIndex, tryRefreshLock } from '../sources/index/index.js';
import { openKbIndex } from '../pipeline/kb/index.js';

const i = process.argv.indexOf('--kb');
const kb = i >= 0 ? process.argv[i + 1] : undefined;
if (!kb) {
  process.stderr.write('recall refresher: --kb ROOT is required\n');
  process.exitCode = 2;
} else {
  // Everything this process writes (index, WAL) is for the user only.
  process.umask(0o077);
  const config = loadConfig(process.env);
  // Opened as every recall opens it (team shard attached): a refresher that walked fewer folders
  // would delete the others' notes from the index.
  const index = openKbIndex(config, kb);
  const lock = index.file === ':memory:' ? null : tryRefreshLock(index.file);
  try {
    if (lock) refreshIndex(index, { problems: false, onBatch: () => lock.beat() });
  } catch {
    /* a full disk or corruption: the next recall reports it */
  } finally {
    lock?.release();
    closeIndex(index);
  }
}
