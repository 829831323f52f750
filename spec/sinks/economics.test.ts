import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_DISCOVERY_TOKENS,
  UNKNOWN_GLYPH,
  blockEconomics,
  discoveryTokens,
  economicsBlock,
  economicsRow,
  glyphFor,
  pyHead,
  pyLen,
  readTokens,
  roundHalfEven,
  savingsPct,
} from '../../sinks/economics.js';
import { makeNote } from './helpers.js';

const NO_GLYPHS = new Map<string, string>();

describe('roundHalfEven (Python round)', () => {
  it.each([
    [12.5, 12],
    [13.5, 14],
    [0.5, 0],
    [1.5, 2],
    [-12.5, -12],
    [-13.5, -14],
    [2.4999, 2],
    [2.5001, 3],
    [-2.6, -3],
    [90, 90],
  ])('%p → %p', (x, want) => {
    expect(roundHalfEven(x)).toBe(want);
  });
});

describe('savingsPct', () => {
  it('rounds exact halves to even, as Python does', () => {
    expect(savingsPct(8, 7)).toBe(12); // 12.5
    expect(savingsPct(8, 5)).toBe(38); // 37.5
    expect(savingsPct(16, 6)).toBe(62); // 62.5
    expect(savingsPct(8, 9)).toBe(-12); // -12.5
  });
  it('is 0 when D is 0 and negative when reading costs more', () => {
    expect(savingsPct(0, 5)).toBe(0);
    expect(savingsPct(50, 100)).toBe(-100);
    expect(savingsPct(1000, 100)).toBe(90);
  });
});

describe('readTokens', () => {
  it('is len // 4 with a floor of 1, counting code points like Python', () => {
    expect(readTokens({ chunkText: 'x'.repeat(403) })).toBe(100);
    expect(readTokens({ chunkText: '' })).toBe(1);
    expect(readTokens({ chunkText: 'abc' })).toBe(1);
    // 8 astral characters are 16 UTF-16 units but 8 code points.
    expect(readTokens({ chunkText: '\u{1F600}'.repeat(8) })).toBe(2);
  });
  it('pyLen / pyHead count code points', () => {
    expect(pyLen('a\u{1F600}b')).toBe(3);
    expect(pyHead('a\u{1F600}bc', 2)).toBe('a\u{1F600}');
    expect(pyHead('abc', 0)).toBe('');
    expect(pyHead('', 5)).toBe('');
  });
});

describe('discoveryTokens', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'recall-econ-'));
    writeFileSync(path.join(tmp, 'session.jsonl'), 'y'.repeat(4003));
    writeFileSync(path.join(tmp, 'empty.jsonl'), '');
    mkdirSync(path.join(tmp, 'home', 'logs'), { recursive: true });
    writeFileSync(path.join(tmp, 'home', 'logs', 's.jsonl'), 'z'.repeat(800));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('uses the declared discovery_tokens first (0 included)', () => {
    expect(discoveryTokens(makeNote({ discoveryTokens: 4242, learningType: 'bug-fix' }), tmp)).toBe(4242);
    expect(discoveryTokens(makeNote({ discoveryTokens: 0, learningType: 'bug-fix' }), tmp)).toBe(0);
  });

  it('falls back to the size of provenance.source_path // 4', () => {
    const note = makeNote({
      discoveryTokens: null,
      learningType: 'bug-fix',
      frontmatter: { provenance: { source_path: path.join(tmp, 'session.jsonl') } },
    });
    expect(discoveryTokens(note, tmp)).toBe(1000);
  });

  it('expands ~/ with the given home', () => {
    const note = makeNote({ discoveryTokens: null, frontmatter: { provenance: { source_path: '~/logs/s.jsonl' } } });
    expect(discoveryTokens(note, path.join(tmp, 'home'))).toBe(200);
  });

  it('ignores an empty, missing or unstat-able source file and uses the learning type', () => {
    const empty = makeNote({
      discoveryTokens: null,
      learningType: 'decision',
      frontmatter: { provenance: { source_path: path.join(tmp, 'empty.jsonl') } },
    });
    const missing = makeNote({
      discoveryTokens: null,
      learningType: 'decision',
      frontmatter: { provenance: { source_path: path.join(tmp, 'nope') } },
    });
    expect(discoveryTokens(empty, tmp)).toBe(1200);
    expect(discoveryTokens(missing, tmp)).toBe(1200);
    const throwing = () => {
      throw new Error('EACCES');
    };
    expect(discoveryTokens(missing, tmp, throwing)).toBe(1200);
  });

  it('only stats (injected stat sees the expanded path)', () => {
    const seen: string[] = [];
    const note = makeNote({ discoveryTokens: null, frontmatter: { provenance: { source_path: '~/a.log' } } });
    expect(
      discoveryTokens(note, '/home/u', (p) => {
        seen.push(p);
        return 40;
      }),
    ).toBe(10);
    expect(seen).toEqual(['/home/u/a.log']);
  });

  it.each([
    ['bug-fix', 3000],
    ['anti-pattern', 2500],
    ['correction', 2000],
    ['pattern', 1500],
    ['decision', 1200],
    ['insight', DEFAULT_DISCOVERY_TOKENS],
    ['', DEFAULT_DISCOVERY_TOKENS],
  ])('learning_type %p → %p', (learningType, want) => {
    expect(discoveryTokens(makeNote({ discoveryTokens: null, learningType }), tmp)).toBe(want);
  });
});

describe('glyphs, rows and blocks', () => {
  const glyphs = new Map([
    ['bug-fix', '\u2692'],
    ['pattern', '\u2315'],
  ]);

  it('looks the glyph up by lower-cased type; unknown → ·', () => {
    expect(glyphFor('bug-fix', glyphs)).toBe('\u2692');
    expect(glyphFor('Bug-Fix', glyphs)).toBe('\u2692');
    expect(glyphFor('nonsense', glyphs)).toBe(UNKNOWN_GLYPH);
    expect(glyphFor('', glyphs)).toBe('\u00b7');
    expect(glyphFor('pattern', NO_GLYPHS)).toBe('\u00b7');
  });

  it('builds the row {discovery_tokens, read_tokens, savings_pct, glyph}', () => {
    const row = economicsRow(makeNote({ discoveryTokens: 1000, learningType: 'bug-fix' }), { glyphs, home: '/h' });
    expect(row).toEqual({ discovery_tokens: 1000, read_tokens: 100, savings_pct: 90, glyph: '\u2692' });
    expect(Object.keys(row)).toEqual(['discovery_tokens', 'read_tokens', 'savings_pct', 'glyph']);
  });

  it('rolls rows up, with banker-rounded percentage', () => {
    const rows = [
      { discovery_tokens: 4, read_tokens: 3, savings_pct: 25, glyph: '·' },
      { discovery_tokens: 4, read_tokens: 4, savings_pct: 0, glyph: '·' },
    ];
    // (8 - 7) / 8 = 12.5% → 12
    expect(economicsBlock(rows)).toEqual({ count: 2, read_tokens: 7, discovery_tokens: 8, saved_tokens: 1, savings_pct: 12 });
    expect(Object.keys(economicsBlock(rows))).toEqual(['count', 'read_tokens', 'discovery_tokens', 'saved_tokens', 'savings_pct']);
  });

  it('rolls nothing up to zeros', () => {
    expect(economicsBlock([])).toEqual({ count: 0, read_tokens: 0, discovery_tokens: 0, saved_tokens: 0, savings_pct: 0 });
    expect(blockEconomics([], glyphs, '/h')).toEqual(economicsBlock([]));
  });

  it('blockEconomics equals the roll-up of the rows', () => {
    const notes = [makeNote({ discoveryTokens: 3000 }), makeNote({ discoveryTokens: 50 })];
    expect(blockEconomics(notes, glyphs, '/h')).toEqual({
      count: 2,
      read_tokens: 200,
      discovery_tokens: 3050,
      saved_tokens: 2850,
      savings_pct: 93,
    });
  });
});
