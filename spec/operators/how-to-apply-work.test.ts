/**
 * A Claude Code memory's How to apply names the work it applies to; a learning's says what to do
 * about its problem (operators/lift-asked-steps.ts appliesTo).
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import { askedWorkWords } from '../../operators/action/asked-work.js';
import { queryTerms } from '../../core/stems.js';
import { initialState } from '../../core/state.js';
import { note } from '../helpers/notes.js';
import type { Note } from '../../core/note/index.js';

const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
  live: 40,
  df: new Map(stems.map((s) => [s, 3])),
  info: new Map(stems.map((s) => [s, 0.3])),
});

async function estimate(query: string, n: Note): Promise<{ p: number; source: string }> {
  const s = await lastValueFrom(
    of({ ...initialState(query, []), candidates: [{ note: n, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }] }).pipe(
      estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
    ),
  );
  return s.relevance.get(n.key)!;
}

const HOW = '**How to apply:** When tests exhaust the postgres pool, switch to a session engine.';

describe("the work a note's How to apply names", () => {
  it("reads the work from a memory's How to apply", async () => {
    const memory = note(
      { id: undefined, name: 'db-session-engine', description: 'One engine per session', metadata: { type: 'feedback' } },
      `One engine.\n\n${HOW}`,
      'documents/db-session-engine.md',
    );
    expect((await estimate('write a unit test for this function', memory)).p).toBe(ASKED_STEP_SURE);
  });

  it("reads none from a learning's How to apply, which says what to do about its problem", async () => {
    const learning = note({ title: 'Session-scoped engine and rollback fixtures', learning_type: 'pattern' }, `One engine.\n\n${HOW}`);
    expect((await estimate('write a unit test for this function', learning)).source).not.toBe('asked-step');
  });
});

describe('askedWorkWords', () => {
  it('searches the words of the work a prompt asks for, not of work it only mentions', () => {
    expect(askedWorkWords('pull in resilience4j for the retries in the norrland client')).toContain('dependency');
    expect(askedWorkWords('write tests for ParseTenantHeader')).toContain('tests');
    // Mocks and credentials are read wherever a prompt brings them up: no request, no search.
    expect(askedWorkWords('fake timers')).toEqual([]);
    expect(askedWorkWords('I have the account SID and auth token')).toEqual([]);
    expect(askedWorkWords('why is the build slow')).toEqual([]);
  });
});
