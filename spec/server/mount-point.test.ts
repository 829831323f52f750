/**
 * io/mount-point.ts, which the recall server's probe uses: the mount a path is on, read from the
 * kernel's mount list (never from the path, which may be on a hung mount): the longest mount point
 * it is under, escapes in the list decoded.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isUnder, mountPointOf } from '../../io/mount-point.js';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const MOUNTINFO = [
  '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
  '30 22 0:40 / /home rw shared:2 - nfs srv:/home rw',
  '31 30 0:41 / /home/me/my\\040work rw shared:3 - fuse.sshfs me@box: rw',
  '32 22 0:42 / /homework rw shared:4 - tmpfs tmpfs rw',
].join('\n');

describe('mountPointOf', () => {
  it('the longest mount point a path is under, with escaped spaces read', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-mounts-'));
    const file = path.join(dir, 'mountinfo');
    fs.writeFileSync(file, `${MOUNTINFO}\n`);
    expect(mountPointOf('/home/me/proj', file)).toBe('/home');
    expect(mountPointOf('/home/me/my work/proj/.git', file)).toBe('/home/me/my work');
    expect(mountPointOf('/homework/x', file)).toBe('/homework');
    expect(mountPointOf('/usr/lib', file)).toBe('/');
    expect(mountPointOf('/home', file)).toBe('/home');
  });

  it('null without a mount list', () => {
    expect(mountPointOf('/home/x', path.join(os.tmpdir(), 'no-such-mountinfo-here'))).toBeNull();
  });

  it('isUnder: the folder itself and what is below it, not a sibling whose name starts alike', () => {
    expect(isUnder('/a/b', '/a/b')).toBe(true);
    expect(isUnder('/a/b/c', '/a/b')).toBe(true);
    expect(isUnder('/a/bc', '/a/b')).toBe(false);
    expect(isUnder('/a/b/..c', '/a/b')).toBe(true);
    expect(isUnder('/a', '/a/b')).toBe(false);
    expect(isUnder('the KBs of /a/b', '/a/b')).toBe(false);
  });
});
