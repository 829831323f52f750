import { describe, it, expect } from '@jest/globals';
import { initialState } from '../../core/state.js';
import { traceStage, type TraceEvent } from '../../operators/trace-stage.js';
import { scheduler } from './states.js';

describe('traceStage', () => {
  const s = initialState('q', ['q']);

  it('reports each event the describe function builds, stamped with the time, and passes the state through', () => {
    const events: TraceEvent[] = [];
    let t = 0;
    scheduler().run(({ cold, expectObservable }) => {
      const op = traceStage(
        (e) => events.push(e),
        () => (t += 5),
        () => [
          { stage: 'cache', tier: null },
          { stage: 'cache', tier: 'exact' },
        ],
        'cache',
      );
      expectObservable(cold('-s|', { s }).pipe(op)).toBe('-s|', { s });
    });
    expect(events).toEqual([
      { stage: 'cache', tier: null, t: 5 },
      { stage: 'cache', tier: 'exact', t: 10 },
    ]);
  });

  it('never lets a throwing sink or describe function change the recall', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const throwingSink = traceStage(
        () => {
          throw new Error('sink');
        },
        () => 0,
        () => ({ stage: 'cache', tier: null }),
        'cache',
      );
      const throwingDescribe = traceStage(
        () => undefined,
        () => 0,
        () => {
          throw new Error('describe');
        },
        'cache',
      );
      expectObservable(cold('-s|', { s }).pipe(throwingSink, throwingDescribe)).toBe('-s|', { s });
    });
  });

  it('is no operator at all without a sink', () => {
    let described = 0;
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(
        cold('-s|', { s }).pipe(
          traceStage(
            undefined,
            () => 0,
            () => (described++, null),
            'cache',
          ),
        ),
      ).toBe('-s|', { s });
    });
    expect(described).toBe(0);
  });
});
