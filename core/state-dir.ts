/**
 * Where recall keeps its state (index, cache, logs, models, session files): `REFLECT_STATE_DIR`,
 * else `~/.reflect`. A relative setting is taken from HOME, never from the current folder: a hook
 * runs in whatever project the harness is in, so a relative path would scatter state (and the recall
 * log, with prompts in it) into each project's tree.
 */
import path from 'node:path';

export function resolveStateDir(home: string, raw: string | null | undefined): string {
  const p = (raw ?? '').trim();
  if (!p) return path.join(home, '.reflect');
  if (p === '~') return path.resolve(home);
  if (p.startsWith('~/')) return path.resolve(home, p.slice(2));
  return path.resolve(home, p);
}
