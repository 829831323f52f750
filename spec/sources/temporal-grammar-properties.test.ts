/** Properties of the temporal grammar over generated text: it never throws, and a window it finds is well formed. */
import { describe, it, expect } from '@jest/globals';
import { extractTemporal, mayContainDate, type TemporalConstraint } from '../../sources/query/temporal-grammar.js';
import { rng } from '../../scripts/bench/kb-gen.js';

describe('extractTemporal: property', () => {
  const VOCAB = [
    'yesterday',
    'today',
    'ago',
    'last',
    'this',
    'past',
    'previous',
    'current',
    'between',
    'from',
    'and',
    'to',
    'until',
    'through',
    'before',
    'after',
    'since',
    'till',
    'the',
    'in',
    'during',
    'around',
    'by',
    'on',
    'a',
    'couple',
    'few',
    'of',
    'day',
    'days',
    'week',
    'weeks',
    'weekend',
    'month',
    'months',
    'year',
    'years',
    'sprint',
    'recently',
    'lately',
    'march',
    'may',
    'sept.',
    'dec',
    'november',
    'friday',
    'monday',
    'two',
    'twelve',
    '0',
    '3',
    '7',
    '31',
    '999',
    '1000',
    '2024',
    '1999',
    '2026-06-01',
    '2026-02-30',
    '2026/13/01',
    '0000-01-01',
    '12:30',
    '1/2',
    '5pm',
    ',',
    'fix',
    'auth',
    'bug',
    'deploy',
    'now',
  ];

  it('500 random phrases never throw and never return start > end', () => {
    const next = rng(0x5eed);
    for (let i = 0; i < 500; i++) {
      const words = Array.from({ length: 1 + Math.floor(next() * 7) }, () => VOCAB[Math.floor(next() * VOCAB.length)]);
      const text = words.join(' ');
      const ref = new Date(2000 + Math.floor(next() * 40), Math.floor(next() * 12), 1 + Math.floor(next() * 28), 12);
      let c: TemporalConstraint | null = null;
      expect(() => {
        c = extractTemporal(text, ref);
      }).not.toThrow();
      if (c !== null) {
        const { start, end } = c as TemporalConstraint;
        expect(start.getTime()).toBeLessThanOrEqual(end.getTime());
        expect(mayContainDate(text)).toBe(true);
      }
    }
  });
});
