import { describe, it, expect } from '@jest/globals';
import { map } from 'rxjs';
import type { RecallState } from '../../core/state.js';
import type { BoostName } from '../../core/types.js';
import { applyBoosts } from '../../operators/apply-boosts.js';
import { BOOST_NORMS } from '../../operators/math/boosts.js';
import { fused, keys, note, scheduler } from './states.js';

const ALPHAS: Record<BoostName, number> = {
  confidence: 0.2,
  recency: 0.2,
  tags: 0.2,
  proof: 0.2,
  project: 0.2,
  domain: 0.2,
  authority: 0.2,
  speculative: 0.2,
};
const NOW = Date.parse('2025-06-01T00:00:00Z');
const context = () => ({ nowMs: NOW, queryTags: [], currentProject: '', domainHint: '' });

describe('applyBoosts', () => {
  const hi = note({ id: 'hi', confidence: 'high', date: '2025-05-30' });
  const lo = note({ id: 'lo', confidence: 'low', date: '2025-05-30' });
  // Same evidence for both: only the boosts can order them.
  const tie = (): RecallState => {
    const s = fused([lo, hi]);
    return { ...s, candidates: s.candidates.map((c) => ({ ...c, evidence: 1 })) };
  };

  it('scores and sorts: with equal evidence the higher-confidence note wins', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const out$ = cold('-s|', { s: tie() }).pipe(
        applyBoosts({ alphas: ALPHAS, context }),
        map((s) => ({ ids: keys(s.selected), degraded: s.degraded })),
      );
      expectObservable(out$).toBe('-x|', { x: { ids: ['hi', 'lo'], degraded: [] } });
    });
  });

  it('makes a throwing boost neutral (factor 1) for every candidate, records it, and keeps the other boosts', () => {
    const norms = {
      ...BOOST_NORMS,
      recency: () => {
        throw new Error('bad date');
      },
    };
    scheduler().run(({ cold, expectObservable }) => {
      const out$ = cold('-s|', { s: tie() }).pipe(
        applyBoosts({ alphas: ALPHAS, context, norms }),
        map((s) => ({
          ids: keys(s.selected),
          recency: s.selected.map((c) => c.boosts.recency),
          confidenceMoved: s.selected.map((c) => c.boosts.confidence !== 1),
          degraded: s.degraded,
        })),
      );
      expectObservable(out$).toBe('-x|', {
        x: {
          ids: ['hi', 'lo'],
          recency: [1, 1],
          confidenceMoved: [true, true],
          degraded: [{ stage: 'boost:recency', reason: 'error', message: 'bad date' }],
        },
      });
    });
  });

  it('makes every boost neutral when the shared context cannot be built, and says so once', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const broken = () => {
        throw new Error('git exploded');
      };
      const out$ = cold('-s|', { s: tie() }).pipe(
        applyBoosts({ alphas: ALPHAS, context: broken }),
        map((s) => ({
          ids: keys(s.selected),
          neutral: s.selected.every((c) => Object.values(c.boosts).every((f) => f === 1)),
          degraded: s.degraded.map((d) => d.stage),
        })),
      );
      // All boosts neutral: the tie keeps fusion order.
      expectObservable(out$).toBe('-x|', { x: { ids: ['lo', 'hi'], neutral: true, degraded: ['boosts'] } });
    });
  });

  it('turns no candidates into an empty scored list without building the context', () => {
    let built = 0;
    scheduler().run(({ cold, expectObservable }) => {
      const out$ = cold('-s|', { s: fused([]) }).pipe(
        applyBoosts({ alphas: ALPHAS, context: () => (built++, context()) }),
        map((s) => [s.scored.length, s.selected.length]),
      );
      expectObservable(out$).toBe('-x|', { x: [0, 0] });
    });
    expect(built).toBe(0);
  });
});
