/**
 * A memory replaced in words gives way to what replaced it last: where the memory that replaced it
 * was replaced in turn, the call gets the newest, not the one in between, and a loop of
 * replacements ends.
 */
import { describe, it, expect } from '@jest/globals';
import { giveWayToReplacements } from '../../hooks/action-recall.js';

const match = (id: string, score: number) => ({ id, score, strong: true, pieces: 1, why: [] });

describe('a chain of replacements stated in words', () => {
  it('gives the newest memory of the chain', () => {
    const replacedBy = new Map([
      ['workers', 'horizon'],
      ['horizon', 'k8s-jobs'],
    ]);
    expect(giveWayToReplacements([match('workers', 5)], replacedBy).map((m) => m.id)).toEqual(['k8s-jobs']);
    expect(giveWayToReplacements([match('workers', 5), match('horizon', 3)], replacedBy).map((m) => m.id)).toEqual(['k8s-jobs']);
  });

  it('ends on a loop, giving one memory of it', () => {
    const loop = new Map([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ]);
    expect(giveWayToReplacements([match('a', 5)], loop)).toHaveLength(1);
  });
});
