/**
 * Which mount a path is on, without touching the path: a read there may never return (a hung NFS
 * or FUSE mount), and /proc/self/mountinfo is the kernel's list, answered whatever the mounts do.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Whether path `p` is `dir` or under it (both absolute; a label that is no path is under nothing). */
export function isUnder(p: string, dir: string): boolean {
  if (!path.isAbsolute(p) || !path.isAbsolute(dir)) return false;
  const rel = path.relative(dir, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The mount point `p` is on, as written (a symlink is not followed: that would read it), from
 * `mountinfo` (Linux); null where there is no such list.
 */
export function mountPointOf(p: string, mountinfo = '/proc/self/mountinfo'): string | null {
  let text: string;
  try {
    text = fs.readFileSync(mountinfo, 'utf8');
  } catch {
    return null;
  }
  let best: string | null = null;
  for (const line of text.split('\n')) {
    // The fifth field, with a space, tab, newline or backslash written as an octal escape.
    const field = line.split(' ')[4];
    if (!field) continue;
    const point = field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (isUnder(p, point) && (best === null || point.length > best.length)) best = point;
  }
  return best;
}
