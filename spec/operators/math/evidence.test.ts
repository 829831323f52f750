import { describe, it, expect } from '@jest/globals';
import {
  evidenceInWords,
  evidenceMass,
  logScale,
  pairKey,
  phraseCount,
  queryPairs,
  standouts,
  summaryShare,
  termEvidence,
} from '../../../operators/math/evidence.js';
import { noteTerms, type WeightedTerm } from '../../../operators/math/relevance.js';
import { contentStemSequence, textStemPairs, textStems } from '../../../core/stems.js';

const term = (stem: string, info = 0.7, df = 1): WeightedTerm => ({ stem, info, df });

describe('evidence', () => {
  it('counts matched evidence absolutely: more unmatched prompt words do not lower it', () => {
    const note = noteTerms(['redi', 'pool', 'exhaust']);
    const short = evidenceMass([term('redi'), term('pool')], note, 100).mass;
    const long = evidenceMass([term('redi'), term('pool'), term('kafka'), term('rebalanc'), term('consum'), term('lag')], note, 100).mass;
    expect(long).toBeCloseTo(short, 12);
    expect(short).toBeGreaterThan(0);
  });

  it('weighs a word by its information and its rarity in the KB', () => {
    expect(termEvidence(term('x', 1, 0), 100)).toBeCloseTo(1, 12);
    expect(termEvidence(term('x', 1, 50), 100)).toBeLessThan(termEvidence(term('x', 1, 2), 100));
    expect(termEvidence(term('x', 0.3, 2), 100)).toBeLessThan(termEvidence(term('x', 0.9, 2), 100));
  });

  it('pairs adjacent content words of the query, function words skipped', () => {
    const seq = contentStemSequence('the pool of connections is exhausted');
    expect(queryPairs(seq)).toEqual([
      ['pool', 'connect'],
      ['connect', 'exhaust'],
    ]);
  });

  it('finds a query phrase that stands next to itself in the note, in either order', () => {
    const text = 'Fix postgres connection pool exhaustion in pytest';
    const stems = noteTerms(textStems(text));
    const byStem = new Map(['connect', 'pool', 'state', 'lock'].map((s) => [s, term(s)]));
    const pairs = () => textStemPairs(text);
    expect(phraseCount(queryPairs(contentStemSequence('connection pool')), byStem, stems, pairs)).toBe(1);
    expect(phraseCount(queryPairs(contentStemSequence('pool connection')), byStem, stems, pairs)).toBe(1);
    // Both words in the note, but apart: no phrase.
    const apart = 'The pool ran dry; every connection waited';
    expect(
      phraseCount(queryPairs(contentStemSequence('connection pool')), byStem, noteTerms(textStems(apart)), () => textStemPairs(apart)),
    ).toBe(0);
    expect(textStemPairs('state lock')).toEqual(new Set([pairKey('state', 'lock')]));
  });

  it('measures the share of the summary the query matches', () => {
    const summary = new Map([
      ['redi', 1],
      ['pool', 0.5],
      ['burst', 0.5],
    ]);
    expect(summaryShare(summary, new Set(['redi']))).toBeCloseTo(0.5, 12);
    expect(summaryShare(summary, new Set())).toBe(0);
    expect(summaryShare(new Map(), new Set(['redi']))).toBe(0);
  });

  it('says how far each candidate stands above the mean of the others', () => {
    const s = standouts([3, 0.5, 0.5]);
    expect(s[0]).toBeCloseTo(logScale(2.5), 12);
    expect(s[1]).toBe(0);
    expect(standouts([2])).toEqual([logScale(2)]);
  });

  it('says in words what evidence a note has and lacks', () => {
    expect(evidenceInWords({ summaryShare: 0, phrases: 0, standout: 0 }, [], ['kafka'])).toBe('it shares no specific word with the query');
    expect(evidenceInWords({ summaryShare: 0, phrases: 0, standout: 0.1 }, ['sqlite'], ['checkout'])).toBe(
      'it shares "sqlite" with the query, but its title, key insight and tags match none of it, it repeats no word pair of the query, it does not stand out from the other candidates, it lacks "checkout"',
    );
    expect(evidenceInWords({ summaryShare: 0.4, phrases: 0.6, standout: 1 }, ['redis', 'pool'], [])).toBe(
      'it shares "redis", "pool" with the query',
    );
  });
});
