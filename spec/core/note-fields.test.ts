import { describe, it, expect } from '@jest/globals';
import { confidenceNum, confidenceTier, normaliseProject, parseNote, parseTags, proofCount } from '../../core/note/note.js';

/** A note file with the given frontmatter lines and body. */
const md = (fm: string, body = 'Body text.\n'): string => `---\n${fm}\n---\n${body}`;
const parse = (text: string) => parseNote(text, 'documents/n.md', 'documents');

describe('confidence', () => {
  it.each<[string, string, number]>([
    ['confidence: high', 'HIGH', 0.9],
    ['confidence: Medium', 'MEDIUM', 0.6],
    ['confidence: low', 'LOW', 0.3],
    ['confidence: med', 'MED', 0.6],
    ['confidence: 0.85', 'HIGH', 0.85],
    ['confidence: 0.6', 'MEDIUM', 0.6],
    ['confidence: 0.2', 'LOW', 0.2],
    ['id: x', 'MEDIUM', 0.6],
    ['confidence: true', 'TRUE', 0.6],
    ['confidence: weird', 'WEIRD', 0.6],
  ])('%s → tier %s, num %p', (fm, tier, num) => {
    const note = parse(md(fm));
    expect(note.confidence).toBe(tier);
    expect(note.confidenceNum).toBeCloseTo(num, 12);
  });

  it('maps tiers with confidenceTier', () => {
    expect(confidenceTier(undefined)).toBe('MEDIUM');
    expect(confidenceTier(null)).toBe('MEDIUM');
    expect(confidenceTier('')).toBe('MEDIUM');
    expect(confidenceTier(' high ')).toBe('HIGH');
    expect(confidenceTier(0.8)).toBe('HIGH');
    expect(confidenceTier(0.5)).toBe('MEDIUM');
    expect(confidenceTier(0.49)).toBe('LOW');
    expect(confidenceTier(true)).toBe('TRUE');
    expect(confidenceTier(false)).toBe('FALSE');
  });

  it('prefers confidence_num, then numeric confidence, then the tier midpoint', () => {
    expect(confidenceNum({ confidence_num: 0.42, confidence: 0.95 }, 'HIGH')).toBe(0.42);
    expect(confidenceNum({ confidence: 0.95 }, 'HIGH')).toBe(0.95);
    expect(confidenceNum({ confidence: '0.7' }, '0.7')).toBe(0.7);
    expect(confidenceNum({ confidence_num: '0.75' }, 'LOW')).toBe(0.75);
    expect(confidenceNum({}, 'HIGH')).toBe(0.9);
    expect(confidenceNum({}, 'MEDIUM')).toBe(0.6);
    expect(confidenceNum({}, 'MED')).toBe(0.6);
    expect(confidenceNum({}, 'LOW')).toBe(0.3);
    expect(confidenceNum({}, 'TRUE')).toBe(0.6);
  });

  it('clamps to 0..1 and ignores NaN, bools and junk', () => {
    expect(confidenceNum({ confidence_num: 1.7 }, 'LOW')).toBe(1);
    expect(confidenceNum({ confidence_num: -0.4 }, 'HIGH')).toBe(0);
    expect(confidenceNum({ confidence_num: NaN }, 'LOW')).toBe(0.3);
    expect(confidenceNum({ confidence_num: NaN, confidence: 0.7 }, 'MEDIUM')).toBe(0.7);
    expect(confidenceNum({ confidence_num: true }, 'LOW')).toBe(0.3);
    expect(confidenceNum({ confidence_num: 'lots' }, 'HIGH')).toBe(0.9);
    expect(confidenceNum({ confidence_num: '' }, 'HIGH')).toBe(0.9);
    expect(parse(md('confidence: high\nconfidence_num: .nan')).confidenceNum).toBe(0.9);
    expect(parse(md('confidence_num: 3')).confidenceNum).toBe(1);
  });
});

describe('tags', () => {
  it('reads a YAML list, lower-cased, trimmed, deduped in order', () => {
    expect(parse(md('tags: [Tmux, shell, tmux, " Ops "]')).tags).toEqual(['tmux', 'shell', 'ops']);
    expect(parse(md('tags:\n  - a\n  - b')).tags).toEqual(['a', 'b']);
  });

  it('reads "[a, b]" and "a, b" strings', () => {
    expect(parse(md(`tags: "[a, b]"`)).tags).toEqual(['a', 'b']);
    expect(parse(md('tags: a, b')).tags).toEqual(['a', 'b']);
    expect(parseTags('[x,y,,z]')).toEqual(['x', 'y', 'z']);
  });

  it('yields [] for junk', () => {
    expect(parse(md('tags: 5')).tags).toEqual([]);
    expect(parse(md('tags: {a: 1}')).tags).toEqual([]);
    expect(parse(md('id: x')).tags).toEqual([]);
    expect(parseTags(null)).toEqual([]);
    expect(parseTags(true)).toEqual([]);
  });

  it('drops non-scalar list entries and stringifies numbers', () => {
    expect(parseTags([{ a: 1 }, ['n'], 7, 'x', ''])).toEqual(['7', 'x']);
  });
});

describe('proof count', () => {
  it('reads top-level proof_count, then provenance.proof_count', () => {
    expect(parse(md('proof_count: 3')).proofCount).toBe(3);
    expect(parse(md('provenance:\n  proof_count: 4')).proofCount).toBe(4);
    expect(parse(md('proof_count: 2\nprovenance:\n  proof_count: 9')).proofCount).toBe(2);
    expect(proofCount({ proof_count: '5' })).toBe(5);
    expect(proofCount({ proof_count: 0 })).toBe(0);
  });

  it('yields null for bools, negatives, fractions and junk', () => {
    expect(parse(md('proof_count: true')).proofCount).toBeNull();
    expect(parse(md('proof_count: many')).proofCount).toBeNull();
    expect(parse(md('id: x')).proofCount).toBeNull();
    expect(proofCount({ proof_count: -2 })).toBeNull();
    expect(proofCount({ proof_count: 2.5 })).toBeNull();
    expect(proofCount({ provenance: { proof_count: false } })).toBeNull();
    expect(proofCount({ provenance: 'x' })).toBeNull();
  });
});

describe('project', () => {
  it.each<[unknown, string]>([
    ['My-App', 'my-app'],
    ['/Users/x/dev/My-App/', 'my-app'],
    ['/Users/x/dev/My-App', 'my-app'],
    ['C:\\dev\\My-App\\', 'my-app'],
    ['  My-App  ', 'my-app'],
    ['', ''],
    ['/', ''],
    [null, ''],
    [undefined, ''],
    [true, ''],
  ])('normaliseProject(%p) = %p', (value, expected) => {
    expect(normaliseProject(value)).toBe(expected);
  });

  it('prefers project_id and falls back to project', () => {
    expect(parse(md('project_id: /Users/x/dev/My-App/')).projectId).toBe('my-app');
    expect(parse(md('project: Other')).projectId).toBe('other');
    expect(parse(md('project_id: Main\nproject: Other')).projectId).toBe('main');
    expect(parse(md('project_id: ""\nproject: Other')).projectId).toBe('other');
    expect(parse(md('id: x')).projectId).toBe('');
  });
});
