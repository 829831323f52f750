/**
 * The prompt hook's pick from its floored results (hooks/registry.ts wholeLearnings): whole learnings
 * within its budget, and at most one under LIKELY_RELEVANCE, since its floor sits lower than that.
 */
import { describe, it, expect } from '@jest/globals';
import { LIKELY_RELEVANCE, wholeLearnings } from '../../hooks/registry.js';
import { note } from '../helpers/notes.js';
import { scored } from '../operators/states.js';
import type { ScoredCandidate } from '../../core/types.js';

const render = (list: ScoredCandidate[]): string => list.map((c) => `- [${c.note.key}] ${c.note.title}`).join('\n');
const ids = (list: ScoredCandidate[]): string[] => list.map((c) => c.note.key);

describe('wholeLearnings', () => {
  const likely = [0.9, 0.7].map((r, i) => scored(note({ id: `likely-${i}` }), 1 - i / 10, r));
  const weaker = [0.45, 0.35, 0.31].map((r, i) => scored(note({ id: `weak-${i}` }), 0.5 - i / 10, r));

  it('gives learnings under LIKELY_RELEVANCE alone at most: one of them, in rank order', () => {
    expect(weaker.every((c) => c.relevance < LIKELY_RELEVANCE)).toBe(true);
    expect(ids(wholeLearnings(weaker, render, 0.3).kept)).toEqual(['weak-0']);
    expect(ids(wholeLearnings([...likely, ...weaker], render, 0.3).kept)).toEqual(['likely-0', 'likely-1', 'weak-0']);
    expect(ids(wholeLearnings([likely[0]!, ...weaker, likely[1]!], render, 0.3).kept)).toEqual(['likely-0', 'weak-0', 'likely-1']);
  });

  it('holds nothing back when the floor is off (0)', () => {
    expect(ids(wholeLearnings(weaker, render, 0).kept)).toEqual(['weak-0', 'weak-1', 'weak-2']);
  });

  it('the block is the rendering of exactly the learnings kept', () => {
    const out = wholeLearnings([...weaker, ...likely], render, 0.3);
    expect(out.block).toBe(render(out.kept));
  });
});
