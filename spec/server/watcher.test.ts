/**
 * The file watcher and the event fence the recall server relies on for exact freshness: after
 * `fence.pass()`, every change made before it has been seen by the watcher.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventFence, KbWatcher } from '../../server/watcher.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-watch-'));
  dirs.push(d);
  return d;
}

describe('KbWatcher and EventFence', () => {
  it('has seen every write made before the fence passed', async () => {
    const base = temp();
    const kb = path.join(base, 'kb');
    fs.mkdirSync(path.join(kb, 'documents', 'deep'), { recursive: true });
    const watcher = new KbWatcher([kb]);
    const fence = new EventFence(base);
    try {
      expect(watcher.vouches).toBe(true);
      for (let i = 0; i < 60; i += 1) {
        watcher.markClean();
        const rel = i % 3 === 0 ? `documents/deep/n${i}.md` : `documents/n${i}.md`;
        fs.writeFileSync(path.join(kb, rel), `note ${i}`);
        // No event handled yet: the write returned, its event is queued.
        expect(watcher.dirty).toBe(false);
        await fence.pass();
        expect(watcher.dirty).toBe(true);
      }
      watcher.markClean();
      await fence.pass();
      expect(watcher.dirty).toBe(false);
    } finally {
      watcher.close();
      fence.close();
    }
  });

  it('watches folders created later, and gives up on links it cannot follow', async () => {
    const base = temp();
    const kb = path.join(base, 'kb');
    fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
    const watcher = new KbWatcher([kb]);
    const fence = new EventFence(base);
    try {
      fs.mkdirSync(path.join(kb, 'documents', 'later'));
      await fence.pass();
      watcher.markClean();
      fs.writeFileSync(path.join(kb, 'documents', 'later', 'x.md'), 'x');
      await fence.pass();
      expect(watcher.dirty).toBe(true);
      fs.mkdirSync(path.join(base, 'outside'));
      fs.symlinkSync(path.join(base, 'outside'), path.join(kb, 'documents', 'linked'));
      await fence.pass();
      expect(watcher.vouches).toBe(false);
      expect(watcher.why).toMatch(/symlink/);
    } finally {
      watcher.close();
      fence.close();
    }
  });

  it('watches a flat folder of markdown, but not its dot-folders', async () => {
    const base = temp();
    fs.mkdirSync(path.join(base, 'vault', '.obsidian'), { recursive: true });
    fs.mkdirSync(path.join(base, 'vault', 'topic'), { recursive: true });
    const watcher = new KbWatcher([path.join(base, 'vault')]);
    const fence = new EventFence(base);
    try {
      expect(watcher.dirs).toBe(2);
      watcher.markClean();
      fs.writeFileSync(path.join(base, 'vault', '.obsidian', 'workspace.json'), '{}');
      await fence.pass();
      expect(watcher.dirty).toBe(false);
      fs.writeFileSync(path.join(base, 'vault', 'topic', 'a.md'), 'a');
      await fence.pass();
      expect(watcher.dirty).toBe(true);
    } finally {
      watcher.close();
      fence.close();
    }
  });
});
