/**
 * Why a prompt found no notes at all, as the recall log's hook line says it: a KB whose first index
 * is still being built (the deadline stopped the refresh) is not an empty KB, and must not be
 * reported as one (a user reading `trace` would look for a missing KB that is there).
 */
import { describe, it, expect } from '@jest/globals';
import { nothingToRecall } from '../../../hooks/usage/index.js';
import type { RefreshReport } from '../../../sources/index/index.js';

const report = (over: Partial<RefreshReport>): RefreshReport => ({
  total: 0,
  added: 0,
  updated: 0,
  removed: 0,
  unchanged: 0,
  problems: [],
  newProblems: [],
  warnings: [],
  generation: 1,
  ms: 10,
  skipped: false,
  complete: true,
  pending: 0,
  ...over,
});

describe('nothingToRecall', () => {
  it('says the index is still being built when the deadline left files for the background refresher', () => {
    expect(nothingToRecall(report({ complete: false, pending: 20000 }))).toBe(
      'the index is still being built (20000 files left for a background refresher): nothing to recall yet',
    );
  });

  it('says the index could not be refreshed when another process holds it', () => {
    expect(nothingToRecall(report({ complete: false, pending: 0, skipped: true }))).toMatch(
      /^the index holds no notes yet and could not be refreshed now/,
    );
  });

  it('says the KB is empty only when the refresh finished (or there was none)', () => {
    expect(nothingToRecall(report({}))).toBe('no notes to recall from (the KB is empty or missing)');
    expect(nothingToRecall(null)).toBe('no notes to recall from (the KB is empty or missing)');
  });
});
