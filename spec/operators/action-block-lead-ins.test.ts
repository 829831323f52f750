/**
 * A fenced block is what a memory says to run only under a lead-in that sets out what to do ("Lint
 * like this:", "After changing a query:"), not under one that tells what happened ("This wipes
 * every table on staging:"): a run of such a block breaks the memory and still gets it.
 */
import { describe, it, expect } from '@jest/globals';
import { blockStances } from '../../operators/action/stances.js';
import { ids, kb, memory } from '../helpers/action.js';

const run = (idx: ReturnType<typeof kb>, command: string): string[] => ids(idx, 'Bash', { command });

describe('a fenced block under a lead-in that says what went wrong', () => {
  it('is no command to run', () => {
    const text =
      'This wipes every table on staging:\n\n```\nbin/rails db:reset\n```\n\nWhat took staging down:\n\n```\nbin/rails db:drop\n```\n';
    expect(blockStances(text).map((s) => s.recommended)).toEqual([false, false]);
  });

  it('while a lead-in that gives the right way sets out what to run', () => {
    const text = 'Wrong:\n\n```\nbin/rails db:reset\n```\n\nCorrect:\n\n```\nbin/rails db:migrate\n```\n';
    expect(blockStances(text).map((s) => s.recommended)).toEqual([false, true]);
  });

  it('and a run of it still gets the memory', () => {
    const idx = kb({
      'documents/reset.md': memory(
        'staging-db-reset',
        'db:reset wipes the shared staging database',
        'This wipes every table on staging:\n\n```\nbin/rails db:reset\n```\n\nUse `bin/rails db:migrate` there.',
      ),
    });
    expect(run(idx, 'bin/rails db:reset')).toEqual(['staging-db-reset']);
  });
});
