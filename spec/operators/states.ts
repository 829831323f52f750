/** Recall states for the operator marble specs: candidates, scored candidates and arm outcomes from notes. */
import { TestScheduler } from 'rxjs/testing';
import { expect } from '@jest/globals';
import { initialState, type RecallState } from '../../core/state.js';
import type { Note } from '../../core/note/note.js';
import type { ArmName, ArmOutcome, Candidate, ScoredCandidate } from '../../core/types.js';
import { note } from '../helpers/notes.js';

export function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

export const NEUTRAL_BOOSTS = { confidence: 1, recency: 1, tags: 1, proof: 1, project: 1, domain: 1, authority: 1, speculative: 1 };

export function candidate(n: Note, i = 0): Candidate {
  return { note: n, rrf: 1 / (61 + i), evidence: 1 / (i + 1), ranks: { bm25: i + 1 } };
}

export function scored(n: Note, score: number, relevance = 0.5): ScoredCandidate {
  return {
    ...candidate(n),
    ce: null,
    base: score,
    relevance,
    relevanceSource: 'lexical',
    relevanceFactor: relevance,
    titleFactor: 1,
    boosts: { ...NEUTRAL_BOOSTS },
    score,
  };
}

/** A state whose selection (and scored list) is the given candidates, in order. */
export function selecting(list: ScoredCandidate[], query = 'query', terms: string[] = []): RecallState {
  return { ...initialState(query, terms), candidates: list, scored: list, selected: list };
}

/** A state holding fused candidates made from the notes, in order. */
export function fused(notes: Note[], query = 'query'): RecallState {
  return { ...initialState(query, []), candidates: notes.map(candidate) };
}

export function arm(name: ArmName, notes: Note[], scores?: number[], status: ArmOutcome['status'] = 'ok'): ArmOutcome {
  return { arm: name, status, ms: 1, hits: notes.map((n, i) => ({ note: n, score: scores?.[i] ?? notes.length - i })) };
}

export const keys = (list: readonly { note: Note }[]): string[] => list.map((c) => c.note.key);

export { note };
