/**
 * Choosing the engines of a recall looks for the `reflect` executable on PATH only where it could be
 * used: told to (RECALL_ENGINE=reflect), or `auto` on a KB that has a reflect index. Every other
 * recall (every hook on an ordinary KB) skips the stat of each PATH folder. The PATH search is
 * wrapped with a counter before the module that calls it is loaded.
 */
import { describe, it, expect, afterEach, jest } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const searched: string[] = [];
const realArms = await import('../../sources/arms/index.js');
jest.unstable_mockModule('../../sources/arms/index.js', () => ({
  ...realArms,
  findOnPath: (...args: Parameters<typeof realArms.findOnPath>) => {
    searched.push(args[0]);
    return realArms.findOnPath(...args);
  },
}));
const { resolveEngines } = await import('../../pipeline/recall/engines.js');
const { loadConfig } = await import('../../pipeline/config/index.js');

const dirs: string[] = [];
afterEach(() => {
  searched.length = 0;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A KB folder, with a reflect index when `reflectIndex`, and a PATH folder holding an executable `reflect`. */
function setup(reflectIndex: boolean): { kb: string; bin: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-engines-'));
  dirs.push(base);
  const kb = path.join(base, 'kb');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  if (reflectIndex) fs.mkdirSync(path.join(kb, 'nano_graphrag_cache'));
  const bin = path.join(base, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'reflect'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return { kb, bin };
}

describe('resolveEngines', () => {
  it('does not search PATH for reflect on a KB without a reflect index (auto)', () => {
    const { kb, bin } = setup(false);
    const engines = resolveEngines(loadConfig({ PATH: bin }), kb);
    expect(engines.vectorGraph).toEqual({ kind: 'embedded' });
    expect(searched).toEqual([]);
  });

  it('finds reflect on PATH for a KB with a reflect index (auto), and when told to', () => {
    const { kb, bin } = setup(true);
    expect(resolveEngines(loadConfig({ PATH: bin }), kb).vectorGraph).toEqual({ kind: 'reflect', bin: path.join(bin, 'reflect') });
    const plain = setup(false);
    expect(resolveEngines(loadConfig({ PATH: plain.bin, RECALL_ENGINE: 'reflect' }), plain.kb).vectorGraph).toEqual({
      kind: 'reflect',
      bin: path.join(plain.bin, 'reflect'),
    });
    expect(searched).toEqual(['reflect', 'reflect']);
  });
});
