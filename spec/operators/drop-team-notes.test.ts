import { describe, it, expect } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { dropTeamNotes } from '../../operators/filters.js';
import { fused, keys, note, scheduler } from './states.js';

const summary = (s: RecallState) => ({ ids: keys(s.candidates), drops: s.drops.map((d) => `${d.key} ${d.stage}: ${d.reason}`) });

describe('dropTeamNotes', () => {
  const state = fused([
    note({ id: 'own' }),
    note({ id: 'pulled' }, 'Body.', '@team/documents/pulled.md'),
    note({ id: 'live' }, 'Body.', '@team-live/documents/live.md'),
  ]);

  it("drops the pulled shard's notes when team notes are off, and only those", () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(dropTeamNotes(false, '@team'), map(summary))).toBe('-x|', {
        x: { ids: ['own', 'live'], drops: ['pulled team notes: pulled team note (RECALL_TEAM_NOTES=0)'] },
      });
    });
  });

  it('keeps every candidate when team notes are on', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: state }).pipe(dropTeamNotes(true, '@team'))).toBe('-s|', { s: state });
    });
    expect(keys(state.candidates)).toEqual(['own', 'pulled', 'live']);
  });
});
