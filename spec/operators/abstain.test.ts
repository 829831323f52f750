import { describe, it } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import { abstain, abstentionReason } from '../../operators/abstain.js';
import { keys, note, scheduler, scored, selecting } from './states.js';

const summary = (s: RecallState) => ({
  ids: keys(s.selected),
  weak: keys(s.weak),
  abstained: s.abstained,
  drops: s.drops.map((d) => `${d.key} ${d.stage}`),
});

describe('abstain', () => {
  const strong = scored(note({ id: 'strong' }), 0.9, 0.8);
  const weak = scored(note({ id: 'weak' }), 0.8, 0.2);

  it('drops candidates under the floor and keeps the rest in order', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: selecting([strong, weak]) }).pipe(abstain({ floor: 0.5, keepWeak: false }), map(summary))).toBe(
        '-x|',
        {
          x: { ids: ['strong'], weak: [], abstained: null, drops: ['weak relevance-floor'] },
        },
      );
    });
  });

  it('keeps what falls under the floor aside as weak matches when asked', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-s|', { s: selecting([strong, weak]) }).pipe(abstain({ floor: 0.5, keepWeak: true }), map(summary))).toBe(
        '-x|',
        {
          x: { ids: ['strong'], weak: ['weak'], abstained: null, drops: ['weak relevance-floor'] },
        },
      );
    });
  });

  it('abstains with the reason when nothing clears the floor', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const s: RecallState = {
        ...selecting([weak]),
        weighed: [{ stem: 'x', word: 'x', proper: false, info: 0.9, df: 3, specific: true, everyday: false }],
      };
      expectObservable(
        cold('-s|', { s }).pipe(
          abstain({ floor: 0.5, keepWeak: false }),
          map((o) => o.abstained),
        ),
      ).toBe('-x|', {
        x: 'best match weak has relevance 0.20 < floor 0.50',
      });
    });
  });

  it('is off at floor 0', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const s = selecting([weak]);
      expectObservable(cold('-s|', { s }).pipe(abstain({ floor: 0, keepWeak: true }))).toBe('-s|', { s });
    });
  });

  it('names a name that stopped counting as specific, unless the cross-encoder scored the best note', () => {
    const john = { word: 'john', stem: 'john', proper: true, info: 1, df: 60, specific: false, everyday: false };
    const veterans = { word: 'veterans', stem: 'veteran', proper: false, info: 0.68, df: 0, specific: true, everyday: false };
    const state = (ce: number | null): RecallState => ({ ...selecting([{ ...weak, ce }]), weighed: [john, veterans] });
    expect(abstentionReason(state(null), 0.5, { ...weak, ce: null })).toMatch(
      /^no note mentions "veterans"; a name alone \("john"\) does not make a note about the rest; best match/,
    );
    expect(abstentionReason(state(-0.5), 0.5, { ...weak, ce: -0.5 })).toMatch(/^no note mentions "veterans"; best match/);
  });
});
