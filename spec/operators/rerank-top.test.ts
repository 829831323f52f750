import { describe, it, expect } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { EMPTY, NEVER, lastValueFrom, map, of, throwError } from 'rxjs';
import { rerankTop, RERANK_WINDOW } from '../../operators/rerank-top.js';
import { initialState, type RecallState } from '../../core/state.js';
import { NO_MODELS, type ModelClient, type RerankResult, type EmbedResult } from '../../core/ports.js';
import { note } from '../helpers/notes.js';

function stateWith(n: number): RecallState {
  const s = initialState('query words', ['query', 'words']);
  return {
    ...s,
    candidates: Array.from({ length: n }, (_, i) => ({
      note: note({ id: `c${i}` }, i === 0 ? 'x'.repeat(5000) : 'short body'),
      rrf: 1 / (61 + i),
      evidence: 1,
      ranks: { bm25: i + 1 },
    })),
  };
}

function client(rerank: ModelClient['rerank'], embed: ModelClient['embed']): ModelClient {
  return { ...NO_MODELS, rerank, embed, models: { ce: 'fake-ce', embed: 'fake-emb' } };
}

const okRerank = (): ReturnType<ModelClient['rerank']> =>
  of<RerankResult>({
    available: true,
    model: 'fake-ce',
    scores: new Map([
      ['c0', 2.5],
      ['c1', -1],
    ]),
  });
const okEmbed = (): ReturnType<ModelClient['embed']> =>
  of<EmbedResult>({
    available: true,
    model: 'fake-emb',
    query: [1, 0],
    docs: new Map([
      ['c0', [1, 0]],
      ['c1', [0, 1]],
    ]),
  });

describe('rerankTop', () => {
  it('fills cross-encoder scores and embeddings when both models answer', async () => {
    const out = await lastValueFrom(
      of(stateWith(3)).pipe(rerankTop({ client: client(okRerank, okEmbed), crossEncoder: true, embeddings: true, timeoutMs: 1000 })),
    );
    expect(out.ce?.get('c0')).toBe(2.5);
    expect(out.embeddings?.docs.get('c1')).toEqual([0, 1]);
    expect(out.degraded).toEqual([]);
  });

  it('sends only the top RERANK_WINDOW candidates, each text capped at 2000 characters', async () => {
    let sent: { id: string; text: string }[] = [];
    const spy = client((_q, c) => {
      sent = [...c];
      return okRerank();
    }, okEmbed);
    await lastValueFrom(of(stateWith(30)).pipe(rerankTop({ client: spy, crossEncoder: true, embeddings: false, timeoutMs: 1000 })));
    expect(sent).toHaveLength(RERANK_WINDOW);
    expect(sent.map((c) => c.id)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
    expect(sent[0]!.text).toHaveLength(2000);
    expect(sent[1]!.text.length).toBeLessThan(2000);
  });

  it('degrades each side on its own: unavailable cross-encoder, erroring embedder', async () => {
    const c = client(
      () => of<RerankResult>({ available: false, error: 'no cross-encoder model installed' }),
      () => throwError(() => new Error('socket closed')),
    );
    const out = await lastValueFrom(of(stateWith(2)).pipe(rerankTop({ client: c, crossEncoder: true, embeddings: true, timeoutMs: 1000 })));
    expect(out.ce).toBeNull();
    expect(out.embeddings).toBeNull();
    expect(out.degraded).toEqual([
      { stage: 'rerank', reason: 'unavailable', message: 'no cross-encoder model installed' },
      { stage: 'embed', reason: 'error', message: 'socket closed' },
    ]);
  });

  it('does not stall forkJoin when a model completes without answering', async () => {
    const c = client(() => EMPTY, okEmbed);
    const out = await lastValueFrom(of(stateWith(2)).pipe(rerankTop({ client: c, crossEncoder: true, embeddings: true, timeoutMs: 1000 })));
    expect(out.ce).toBeNull();
    expect(out.embeddings).not.toBeNull();
    expect(out.degraded).toEqual([{ stage: 'rerank', reason: 'error', message: 'no answer' }]);
  });

  it('times out a hung model and unsubscribes it, keeping the other side', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const hung = cold<RerankResult>('-');
      const c = client(() => hung, okEmbed);
      const out$ = of(stateWith(2)).pipe(
        rerankTop({ client: c, crossEncoder: true, embeddings: true, timeoutMs: 30, scheduler: ts }),
        map((s) => ({ ce: s.ce, emb: s.embeddings !== null, degraded: s.degraded.map((d) => `${d.stage}:${d.reason}`) })),
      );
      expectObservable(out$).toBe('30ms (x|)', { x: { ce: null, emb: true, degraded: ['rerank:timeout'] } });
      expectSubscriptions(hung.subscriptions).toBe('^ 29ms !');
    });
  });

  it('calls nothing when switched off or when there are no candidates', async () => {
    let calls = 0;
    const counting = client(
      () => {
        calls += 1;
        return NEVER;
      },
      () => {
        calls += 1;
        return NEVER;
      },
    );
    const off = await lastValueFrom(
      of(stateWith(3)).pipe(rerankTop({ client: counting, crossEncoder: false, embeddings: false, timeoutMs: 10 })),
    );
    const empty = await lastValueFrom(
      of(stateWith(0)).pipe(rerankTop({ client: counting, crossEncoder: true, embeddings: true, timeoutMs: 10 })),
    );
    expect(calls).toBe(0);
    expect(off.degraded).toEqual([]);
    expect(empty.ce).toBeNull();
  });
});
