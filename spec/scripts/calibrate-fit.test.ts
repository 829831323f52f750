/**
 * The query-level figures of `npm run calibrate` (scripts/calibrate-fit.ts): per family by default,
 * per set when asked, each query cut at its family's K whatever the grouping.
 */
import { describe, it, expect } from '@jest/globals';
import { figures, kOf, type Example } from '../../scripts/calibrate-fit.js';
import type { RelevanceFeatures } from '../../operators/math/relevance.js';
import type { RelevanceModel } from '../../operators/math/relevance.js';

/** A model whose relevance is sigmoid(4 · evidence − 2): evidence 1 → 0.88, evidence 0 → 0.12. */
const model: RelevanceModel = {
  bias: -2,
  weights: {
    kbCoverage: 0,
    infoCoverage: 0,
    titleCoverage: 0,
    noteMissing: 0,
    evidence: 4,
    summaryShare: 0,
    phrases: 0,
    standout: 0,
  },
};

function features(evidence: number): RelevanceFeatures {
  return {
    kbCoverage: 0,
    infoCoverage: 0,
    titleCoverage: 0,
    titleWithLabels: 0,
    noteMissing: 0,
    maxCovered: 0,
    coveredInfo: 0,
    specificCovered: 1,
    evidence,
    summaryShare: 0,
    phrases: 0,
    standout: 0,
  };
}

function example(set: string, queryId: string, key: string, rank: number, label: 0 | 1, evidence: number, onTopic: boolean): Example {
  return {
    family: 'prompts',
    set,
    queryId,
    inDomain: onTopic,
    nRelevant: onTopic ? 1 : 0,
    key,
    label,
    features: features(evidence),
    rank,
    armRanks: {},
    base: 0,
    terms: [],
    missing: [],
  };
}

// Set a: one on-topic query whose relevant note clears the floor at rank 4 (past the prompts' K of 3,
// under three unlabelled notes that clear it too), one off-topic query that returns a note.
// Set b: one on-topic query whose relevant note clears the floor at rank 1, one off-topic query
// that returns nothing.
const examples: Example[] = [
  ...[1, 2, 3].map((r) => example('a', 'a-on', `n${r}`, r, 0, 1, true)),
  example('a', 'a-on', 'rel', 4, 1, 1, true),
  example('a', 'a-off', 'x', 1, 0, 1, false),
  example('b', 'b-on', 'rel', 1, 1, 1, true),
  example('b', 'b-off', 'y', 1, 0, 0, false),
];

describe('calibrate figures', () => {
  it('counts a family whole by default', () => {
    const [row, ...rest] = figures(examples, model, 0.5, kOf);
    expect(rest).toEqual([]);
    expect(row).toMatchObject({ family: 'prompts', noise: 0.5, falseAbstention: 0, recallAtK: 0.5 });
  });

  it('counts each set on its own when grouped by set, with the family K', () => {
    const rows = figures(examples, model, 0.5, kOf, (e) => e.set);
    expect(kOf('prompts')).toBe(3);
    expect(rows).toEqual([
      { family: 'a', noise: 1, falseAbstention: 0, recallAtK: 0, precision: 0 },
      { family: 'b', noise: 0, falseAbstention: 0, recallAtK: 1, precision: 1 },
    ]);
  });
});
