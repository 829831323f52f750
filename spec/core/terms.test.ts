import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { contentTerms, estimateTokens, jaccard, STOPWORDS, termCoverage, termOccurs } from '../../core/terms.js';

describe('contentTerms', () => {
  it('drops stopwords and one-character words, keeps two-character technical words', () => {
    expect(contentTerms('how do I fix it in go if db is up')).toEqual(['fix', 'go', 'db', 'up']);
    expect(contentTerms('s3 upload fails')).toEqual(['s3', 'upload', 'fails']);
    expect(contentTerms('tests fail only on CI')).toEqual(['tests', 'fail', 'only', 'ci']);
    expect(contentTerms('the and of to')).toEqual([]);
  });

  it('keeps hyphen and underscore terms whole', () => {
    expect(contentTerms('run tmux kill-server now')).toEqual(['run', 'tmux', 'kill-server']);
    expect(contentTerms('set max_connections')).toEqual(['set', 'max_connections']);
  });

  it('lower-cases and dedupes in first-seen order', () => {
    expect(contentTerms('Redis POOL redis Pool timeout')).toEqual(['redis', 'pool', 'timeout']);
  });

  it('handles empty text', () => {
    expect(contentTerms('')).toEqual([]);
  });

  it('only yields lower-case, unique, non-stopword terms of 2+ characters, stable under re-extraction', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aBc-_ 1.The'.split('')), maxLength: 60 }), (text) => {
        const terms = contentTerms(text);
        expect(new Set(terms).size).toBe(terms.length);
        for (const t of terms) {
          expect(t).toMatch(/^[a-z0-9][a-z0-9_-]+$/);
          expect(STOPWORDS.has(t)).toBe(false);
        }
        expect(contentTerms(terms.join(' '))).toEqual(terms);
      }),
    );
  });
});

describe('termCoverage', () => {
  it('is 1.0 for a query with no content terms', () => {
    expect(termCoverage([], 'anything at all')).toBe(1);
    expect(termCoverage(contentTerms('how do I do it'), 'unrelated text')).toBe(1);
  });

  it('covers "tmux kill-server" with text that says "kill server … tmux"', () => {
    const q = contentTerms('tmux kill-server');
    expect(q).toEqual(['tmux', 'kill-server']);
    expect(termCoverage(q, 'To kill the server process, detach from tmux first.')).toBe(1);
  });

  it('reports the covered fraction', () => {
    expect(termCoverage(['tmux', 'redis'], 'tmux only here')).toBe(0.5);
    expect(termCoverage(['tmux', 'redis'], 'nothing relevant')).toBe(0);
  });

  it('matches at word starts only: "pool" in "pools" and "connection-pool", not "spool"', () => {
    expect(termCoverage(['pool'], 'Pools of workers')).toBe(1);
    expect(termCoverage(['pool'], 'the connection-pool is full')).toBe(1);
    expect(termCoverage(['pool'], 'the print spool is full')).toBe(0);
    expect(termCoverage(['pool'], 'spool then pool')).toBe(1);
  });

  it('needs every 3+ character part of a hyphenated term', () => {
    expect(termOccurs('kill-server', 'kill the server')).toBe(true);
    expect(termOccurs('kill-server', 'kill the process')).toBe(false);
  });
});

describe('jaccard', () => {
  const s = (...xs: string[]): Set<string> => new Set(xs);

  it('is 1 for identical sets and 0 for disjoint sets', () => {
    expect(jaccard(s('a', 'b'), s('b', 'a'))).toBe(1);
    expect(jaccard(s('a', 'b'), s('c', 'd'))).toBe(0);
  });

  it('is 1 when both are empty and 0 when only one is', () => {
    expect(jaccard(s(), s())).toBe(1);
    expect(jaccard(s('a'), s())).toBe(0);
    expect(jaccard(s(), s('a'))).toBe(0);
  });

  it('is |A∩B|/|A∪B|', () => {
    expect(jaccard(s('a', 'b', 'c'), s('a', 'b', 'c', 'd'))).toBe(0.75);
    expect(jaccard(s('a', 'b'), s('b', 'c'))).toBeCloseTo(1 / 3, 12);
  });

  it('is symmetric and within 0..1', () => {
    const setArb = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e')).map((xs) => new Set(xs));
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const j = jaccard(a, b);
        expect(j).toBe(jaccard(b, a));
        expect(j).toBeGreaterThanOrEqual(0);
        expect(j).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('estimateTokens', () => {
  it('is floor(length / 4), at least 1', () => {
    expect(estimateTokens('')).toBe(1);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('x'.repeat(8))).toBe(2);
    expect(estimateTokens('x'.repeat(401))).toBe(100);
  });

  it('matches max(1, floor(len/4)) for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (t) => {
        expect(estimateTokens(t)).toBe(Math.max(1, Math.floor(t.length / 4)));
      }),
    );
  });
});
