import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundledModesDir, deepMerge, glyphsFromMode, loadGlyphs, resolveModeId } from '../../sinks/modes.js';
import { findRepo } from '../../sources/git.js';

const REPO_MODES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'sinks', 'modes');

const ENGINEERING_GLYPHS: Array<[string, string]> = [
  ['pattern', '\u2315'],
  ['correction', '\u2315'],
  ['bug-fix', '\u2692'],
  ['decision', '\u2696'],
  ['anti-pattern', '\u26a0'],
];

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'recall-modes-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function writeJson(file: string, data: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
}

/** A modes dir holding a copy of the bundled engineering mode plus `extra` files. */
function modesDir(extra: Record<string, unknown> = {}): string {
  const dir = path.join(tmp, 'modes');
  writeJson(path.join(dir, 'engineering.json'), readFileSync(path.join(REPO_MODES, 'engineering.json'), 'utf8'));
  for (const [name, data] of Object.entries(extra)) writeJson(path.join(dir, `${name}.json`), data);
  return dir;
}

const BASE = {
  id: 'base',
  name: 'Base',
  meta: { a: 1, b: 2 },
  learning_types: [
    { id: 'pattern', emoji: 'P' },
    { id: 'Bug-Fix', emoji: 'b', work_emoji: 'B' },
  ],
};

describe('bundled engineering mode', () => {
  it('maps every engineering type to its work glyph', () => {
    const glyphs = loadGlyphs({ mode: null, modesDir: null, projectDir: tmp, cwd: tmp });
    expect([...glyphs.entries()]).toEqual(ENGINEERING_GLYPHS);
  });

  it('is what an unknown mode falls back to', () => {
    const glyphs = loadGlyphs({ mode: 'no-such-mode', modesDir: null, projectDir: tmp, cwd: tmp });
    expect([...glyphs.entries()]).toEqual(ENGINEERING_GLYPHS);
    const escaping = loadGlyphs({ mode: '../modes/engineering', modesDir: null, projectDir: tmp, cwd: tmp });
    expect([...escaping.entries()]).toEqual(ENGINEERING_GLYPHS);
  });

  it('the mode file gives each type a description and both glyphs', () => {
    const mode = JSON.parse(readFileSync(path.join(REPO_MODES, 'engineering.json'), 'utf8')) as {
      id: string;
      learning_types: Array<Record<string, string>>;
    };
    expect(mode.id).toBe('engineering');
    expect(mode.learning_types.map((t) => t['emoji'])).toEqual(['\u25c6', '\u21bb', '\u25cf', '\u2696', '\u26a0']);
    for (const t of mode.learning_types) expect(t['description']).toEqual(expect.any(String));
  });
});

describe('bundledModesDir', () => {
  it('resolves to sinks/modes from source', () => {
    expect(bundledModesDir()).toBe(REPO_MODES);
  });

  it('finds <root>/sinks/modes from dist/sinks/*.js and from the dist/*.mjs bundle', () => {
    const root = path.join(tmp, 'pkg');
    mkdirSync(path.join(root, 'sinks', 'modes'), { recursive: true });
    mkdirSync(path.join(root, 'dist', 'sinks'), { recursive: true });
    const want = path.join(root, 'sinks', 'modes');
    expect(bundledModesDir(pathToFileURL(path.join(root, 'dist', 'sinks', 'modes.js')).href)).toBe(want);
    expect(bundledModesDir(pathToFileURL(path.join(root, 'dist', 'recall.mjs')).href)).toBe(want);
  });

  it('prefers a modes dir next to the module', () => {
    const here = path.join(tmp, 'dist');
    mkdirSync(path.join(here, 'modes'), { recursive: true });
    expect(bundledModesDir(pathToFileURL(path.join(here, 'recall.mjs')).href)).toBe(path.join(here, 'modes'));
  });
});

describe('active mode', () => {
  it('REFLECT_MODE wins over the project config', () => {
    writeJson(path.join(tmp, '.reflect', 'config.json'), { mode: 'from-config' });
    expect(resolveModeId({ mode: 'explicit', modesDir: null, projectDir: tmp, cwd: tmp })).toBe('explicit');
    expect(resolveModeId({ mode: null, modesDir: null, projectDir: tmp, cwd: '/' })).toBe('from-config');
  });

  it('reads the mode of the project the caller names (the nearest .git ancestor of cwd, as scope finds it)', () => {
    const repo = path.join(tmp, 'repo');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    mkdirSync(path.join(repo, 'a', 'b'), { recursive: true });
    writeJson(path.join(repo, '.reflect', 'config.json'), { mode: 'base' });
    const projectDir = findRepo(path.join(repo, 'a', 'b'))?.top ?? null;
    expect(projectDir).toBe(repo);
    const dir = modesDir({ base: BASE });
    const glyphs = loadGlyphs({ mode: null, modesDir: dir, projectDir, cwd: path.join(repo, 'a', 'b') });
    expect([...glyphs.entries()]).toEqual([
      ['pattern', 'P'],
      ['bug-fix', 'B'],
    ]);
  });

  it('defaults to engineering without config, or with a broken config', () => {
    expect(resolveModeId({ mode: null, modesDir: null, projectDir: tmp, cwd: tmp })).toBe('engineering');
    writeJson(path.join(tmp, '.reflect', 'config.json'), '{not json');
    expect(resolveModeId({ mode: null, modesDir: null, projectDir: tmp, cwd: tmp })).toBe('engineering');
    writeJson(path.join(tmp, '.reflect', 'config.json'), { mode: 7 });
    expect(resolveModeId({ mode: '  ', modesDir: null, projectDir: tmp, cwd: tmp })).toBe('engineering');
  });
});

describe('mode files', () => {
  it('uses work_emoji, else emoji, keyed by lower-cased id', () => {
    const glyphs = loadGlyphs({ mode: 'base', modesDir: modesDir({ base: BASE }), projectDir: tmp, cwd: tmp });
    expect(glyphs.get('pattern')).toBe('P');
    expect(glyphs.get('bug-fix')).toBe('B');
    expect(glyphs.get('decision')).toBeUndefined();
  });

  it('parent--child deep-merges the child over the parent', () => {
    const dir = modesDir({
      base: BASE,
      'base--kid': { name: 'Kid', learning_types: [{ id: 'decision', emoji: 'd', work_emoji: 'D' }] },
      'base--renamed': { name: 'Renamed' },
    });
    const kid = loadGlyphs({ mode: 'base--kid', modesDir: dir, projectDir: tmp, cwd: tmp });
    expect([...kid.entries()]).toEqual([['decision', 'D']]);
    const renamed = loadGlyphs({ mode: 'base--renamed', modesDir: dir, projectDir: tmp, cwd: tmp });
    expect([...renamed.entries()]).toEqual([
      ['pattern', 'P'],
      ['bug-fix', 'B'],
    ]);
  });

  it('parent--child with no child file is the parent; with no parent it is unknown (engineering)', () => {
    const dir = modesDir({ base: BASE, 'ghost--kid': { learning_types: [{ id: 'x', emoji: 'X' }] } });
    expect([...loadGlyphs({ mode: 'base--missing', modesDir: dir, projectDir: tmp, cwd: tmp }).keys()]).toEqual(['pattern', 'bug-fix']);
    expect([...loadGlyphs({ mode: 'ghost--kid', modesDir: dir, projectDir: tmp, cwd: tmp }).entries()]).toEqual(ENGINEERING_GLYPHS);
    expect([...loadGlyphs({ mode: 'base--kid--deeper', modesDir: dir, projectDir: tmp, cwd: tmp }).entries()]).toEqual(ENGINEERING_GLYPHS);
  });

  it('deepMerge merges nested objects and replaces arrays', () => {
    expect(deepMerge({ a: { x: 1, y: 2 }, l: [1, 2], k: 'p' }, { a: { y: 3 }, l: [9] })).toEqual({
      a: { x: 1, y: 3 },
      l: [9],
      k: 'p',
    });
  });

  it('a broken mode file gives an empty map', () => {
    const dir = modesDir({ broken: '{"id": "broken", "learning_types": [' });
    expect(loadGlyphs({ mode: 'broken', modesDir: dir, projectDir: tmp, cwd: tmp }).size).toBe(0);
    const brokenChild = modesDir({ base: BASE, 'base--bad': 'nope' });
    expect(loadGlyphs({ mode: 'base--bad', modesDir: brokenChild, projectDir: tmp, cwd: tmp }).size).toBe(0);
  });

  it('a modes dir without the mode or engineering gives an empty map', () => {
    const empty = path.join(tmp, 'empty-modes');
    mkdirSync(empty);
    expect(loadGlyphs({ mode: 'anything', modesDir: empty, projectDir: tmp, cwd: tmp }).size).toBe(0);
    expect(loadGlyphs({ mode: null, modesDir: path.join(tmp, 'absent'), projectDir: tmp, cwd: tmp }).size).toBe(0);
  });

  it('glyphsFromMode skips entries without an id or a glyph; no list → empty', () => {
    const glyphs = glyphsFromMode({
      learning_types: [{ emoji: 'x' }, { id: 'none' }, { id: ' Kept ', emoji: 'k', work_emoji: '' }, 'junk'],
    });
    expect([...glyphs.entries()]).toEqual([['kept', 'k']]);
    expect(glyphsFromMode({}).size).toBe(0);
  });
});
