import { describe, it, expect } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { map, of, throwError } from 'rxjs';
import { runArm, runArms, type ArmSpec } from '../../operators/run-arms.js';
import { ArmUnavailableError } from '../../core/errors.js';
import type { ArmHit, ArmOutcome } from '../../core/types.js';
import { note } from '../helpers/notes.js';

const hitsA: ArmHit[] = [{ note: note({ id: 'a' }), score: 2 }];
const hitsB: ArmHit[] = [{ note: note({ id: 'b' }), score: 1 }];

function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

const summary = (outs: ArmOutcome[]) => outs.map((o) => ({ arm: o.arm, status: o.status, ids: o.hits.map((h) => h.note.key), ms: o.ms }));

describe('runArms', () => {
  it('unsubscribes a slow arm at its timeout and keeps the other arms results', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const fast = cold<ArmHit[]>('--a|', { a: hitsA });
      const slow = cold<ArmHit[]>('----------b|', { b: hitsB });
      const specs: ArmSpec[] = [
        { arm: 'bm25', source: fast, timeoutMs: 5 },
        { arm: 'vector', source: slow, timeoutMs: 5 },
      ];
      const out$ = of(specs).pipe(runArms({ scheduler: ts }));
      expectObservable(out$.pipe(map(summary))).toBe('-----(x|)', {
        x: [
          { arm: 'bm25', status: 'ok', ids: ['a'], ms: 2 },
          { arm: 'vector', status: 'timeout', ids: [], ms: 5 },
        ],
      });
      // The slow arm is subscribed at 0 and torn down at its 5 ms timeout, long before it would emit.
      expectSubscriptions(slow.subscriptions).toBe('^----!');
      expectSubscriptions(fast.subscriptions).toBe('^-!');
    });
  });

  it('records an erroring arm as "error" and an unavailable engine as "unavailable" without failing the merge', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const specs: ArmSpec[] = [
        { arm: 'vector', source: throwError(() => new ArmUnavailableError('vector', 'no model')), timeoutMs: 10 },
        { arm: 'bm25', source: cold<ArmHit[]>('-a|', { a: hitsA }), timeoutMs: 10 },
        { arm: 'graph', source: cold<ArmHit[]>('-#', undefined, new Error('engine crashed')), timeoutMs: 10 },
      ];
      const out$ = of(specs).pipe(runArms({ scheduler: ts }));
      expectObservable(out$).toBe('-(x|)', {
        x: [
          { arm: 'vector', status: 'unavailable', hits: [], ms: 0, message: 'no model' },
          { arm: 'bm25', status: 'ok', hits: hitsA, ms: 1 },
          { arm: 'graph', status: 'error', hits: [], ms: 1, message: 'engine crashed' },
        ],
      });
    });
  });

  it('rethrows an arm error in strict mode', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const specs: ArmSpec[] = [{ arm: 'bm25', source: cold<ArmHit[]>('-#', undefined, new Error('boom')), timeoutMs: 10 }];
      expectObservable(of(specs).pipe(runArms({ scheduler: ts, strict: true }))).toBe('-#', undefined, new Error('boom'));
    });
  });

  it('reports a disabled arm without subscribing to it', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const temporal = cold<ArmHit[]>('-a|', { a: hitsA });
      const specs: ArmSpec[] = [{ arm: 'temporal', source: temporal, timeoutMs: 10, disabled: 'no date phrase in the query' }];
      expectObservable(of(specs).pipe(runArms({ scheduler: ts }))).toBe('(x|)', {
        x: [{ arm: 'temporal', status: 'disabled', hits: [], ms: 0, message: 'no date phrase in the query' }],
      });
      expectSubscriptions(temporal.subscriptions).toBe([]);
    });
  });

  it('treats an arm that completes without emitting as an empty success', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      expectObservable(runArm({ arm: 'bm25', source: cold<ArmHit[]>('--|'), timeoutMs: 10 }, ts)).toBe('--(x|)', {
        x: { arm: 'bm25', status: 'ok', hits: [], ms: 2 },
      });
    });
  });

  it('runs at most the given number of arms at once', () => {
    const ts = scheduler();
    ts.run(({ cold, expectSubscriptions, expectObservable }) => {
      const a = cold<ArmHit[]>('---a|', { a: hitsA });
      const b = cold<ArmHit[]>('---b|', { b: hitsB });
      const c = cold<ArmHit[]>('-c|', { c: [] });
      const specs: ArmSpec[] = [
        { arm: 'vector', source: a, timeoutMs: 50 },
        { arm: 'bm25', source: b, timeoutMs: 50 },
        { arm: 'graph', source: c, timeoutMs: 50 },
      ];
      const out$ = of(specs).pipe(runArms({ scheduler: ts, concurrency: 2 }));
      expectObservable(out$.pipe(map((outs) => outs.map((o) => o.status)))).toBe('----(x|)', { x: ['ok', 'ok', 'ok'] });
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('^--!');
      // The third arm starts only when a slot frees up (after the first completes at frame 3).
      expectSubscriptions(c.subscriptions).toBe('---^!');
    });
  });
});
