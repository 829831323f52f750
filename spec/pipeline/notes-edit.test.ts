/**
 * setHowToApply, the write behind `recall view`'s "How to apply" form: it edits the line of a live
 * note in place, and never a file in a harness's memory folder, even one a KB links to.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setHowToApply, showNote } from '../../pipeline/notes/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function world(): { home: string; kb: string; io: { env: Record<string, string>; cwd: string; warn: () => void } } {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-edit-')));
  dirs.push(home);
  const kb = path.join(home, 'kb');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  return { home, kb, io: { env: { HOME: home, REFLECT_STATE_DIR: path.join(home, 'state') }, cwd: home, warn: () => undefined } };
}

const note = (id: string, apply: string): string =>
  `---\nid: ${id}\ntitle: "Pool sizing"\nkey_insight: "Size the pool."\n---\n# Pool sizing\n\nSize the pool.\n\n**How to apply:** ${apply}\n`;

describe('setHowToApply', () => {
  it('sets the line of a live note, cleaned to one line, and the note reads back with it', () => {
    const w = world();
    fs.writeFileSync(path.join(w.kb, 'documents', 'pool.md'), note('lrn-pool', 'old advice'));
    const kb = { kb: w.kb, global: false, allBranches: false };
    const r = setHowToApply('lrn-pool', '  Set pool_size\n to 40\tfor the nightly job ', kb, w.io);
    expect(r).toMatchObject({ id: 'lrn-pool', howToApply: 'Set pool_size to 40 for the nightly job' });
    expect(showNote('lrn-pool', kb, w.io).how_to_apply).toBe('Set pool_size to 40 for the nightly job');
    expect(() => setHowToApply('lrn-pool', ' \n ', kb, w.io)).toThrow(/empty/);
    expect(() => setHowToApply('lrn-pool', 'x'.repeat(281), kb, w.io)).toThrow(/281 characters/);
  });

  // Such a note is not even indexed (links out of a KB are not followed); the write's own check on
  // the note's real path is the second line. Either way the memory file must not change.
  it('never edits a memory file that a KB’s documents/ links to', () => {
    const w = world();
    const memory = path.join(w.home, '.claude', 'projects', '-work-shop', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    const target = path.join(memory, 'pool.md');
    fs.writeFileSync(target, note('lrn-linked', 'land it by Thursday'));
    fs.rmdirSync(path.join(w.kb, 'documents'));
    fs.symlinkSync(memory, path.join(w.kb, 'documents'));
    const before = fs.readFileSync(target, 'utf8');
    expect(() => setHowToApply('lrn-linked', 'something else', { kb: w.kb, global: false, allBranches: false }, w.io)).toThrow();
    expect(fs.readFileSync(target, 'utf8')).toBe(before);
  });
});
