/**
 * What the relevance estimate takes as evidence and what it does not: a link from the KB's entity
 * graph to a note that shares nothing of the query, and the prompt's capitals (the notes say which
 * words are names, not how the prompt was typed).
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { queryTerms } from '../../core/stems.js';
import { namesInTexts } from '../../core/text-names.js';
import { initialState, type RecallState } from '../../core/state.js';
import { note } from '../helpers/notes.js';

function stateOf(query: string, notes: { id: string; title: string; body: string }[]): RecallState {
  const s = initialState(query, []);
  return {
    ...s,
    candidates: notes.map((n, i) => ({
      note: note({ id: n.id, title: n.title }, n.body, `documents/${n.id}.md`),
      rrf: 1 / (61 + i),
      evidence: 1 / (i + 1),
      ranks: { bm25: i + 1 },
    })),
  };
}

/** Every stem in `df` notes of a 100-note KB; information from the table (default 0.7). */
function weigh(df: Record<string, number>, info: Record<string, number> = {}): EstimateRelevanceOptions['weigh'] {
  return (stems) => ({ live: 100, df: new Map(stems.map((s) => [s, df[s] ?? 0])), info: new Map(stems.map((s) => [s, info[s] ?? 0.7])) });
}

async function run(
  query: string,
  opts: Partial<EstimateRelevanceOptions>,
  notes: { id: string; title: string; body: string }[],
): Promise<RecallState> {
  const out$ = of(stateOf(query, notes)).pipe(
    estimateRelevance({ terms: queryTerms(query), weigh: weigh({}), dateWindow: false, limit: 10, ...opts }),
  );
  return lastValueFrom(out$);
}

describe('relevance evidence', () => {
  it('lends a linked note nothing when it shares no word of the query but everyday ones', async () => {
    const notes = [
      { id: 'gateway', title: 'API gateway returns 504 during traffic spikes', body: 'The gateway times out on upstream calls.' },
      { id: 'cause', title: 'Redis pool exhaustion under burst', body: 'Size the client pool to peak concurrency.' },
    ];
    const links = (): Map<string, Set<string>> =>
      new Map([
        ['documents/gateway.md', new Set(['documents/cause.md'])],
        ['documents/cause.md', new Set(['documents/gateway.md'])],
      ]);
    const s = await run(
      'gateway 504 errors during traffic spikes',
      { links, weigh: weigh({ gateway: 1, '504': 1, spike: 1, traffic: 1 }) },
      notes,
    );
    expect(s.relevance.get('gateway')!.p).toBeGreaterThan(0.75);
    // The graph ties the two notes together, but the query says nothing the cause note says.
    expect(s.relevance.get('cause')!.source).toBe('lexical');
    expect(s.relevance.get('cause')!.p).toBeLessThan(0.3);
  });

  it('gives a note the same relevance however the prompt is capitalised', async () => {
    const notes = [
      {
        id: 'freeze',
        title: 'No merges to main on Fridays',
        body: 'Merge freeze: nothing lands on Friday after noon; ask Ines for an exception.',
      },
      { id: 'deploy', title: 'Deploys go through Argo CD', body: 'Open a PR to the deploy repo; never kubectl apply.' },
      { id: 'tests', title: 'Integration tests hit a real database', body: 'Never mock the database in tests.' },
    ];
    const w = weigh({ merg: 2, freez: 1, fridai: 1, ine: 1 }, { merg: 0.5, freez: 0.55, fridai: 0.5, ine: 0.4 });
    for (const base of ['merge freeze friday', 'is there a merge freeze this friday, ask ines']) {
      const forms = [base, base.toUpperCase(), base.replace(/\b\w/g, (c) => c.toUpperCase()), base.replace(/^\w/, (c) => c.toUpperCase())];
      const runs = await Promise.all(forms.map((q) => run(q, { weigh: w }, notes)));
      for (const id of ['freeze', 'deploy', 'tests']) {
        const ps = runs.map((r) => r.relevance.get(id)!.p);
        expect(Math.max(...ps) - Math.min(...ps)).toBeLessThanOrEqual(0.05);
      }
      // And the note about it is found either way: the notes write Friday as a name.
      expect(runs[0]!.relevance.get('freeze')!.p).toBeGreaterThan(0.5);
    }
  });

  it('takes a word no note uses as a name when everyday English writes it as one, however it is typed', async () => {
    const notes = [{ id: 'trip', title: 'Melanie: we went camping at the lake', body: 'Melanie said: the kids loved camping.' }];
    const names = (stems: readonly string[]): Set<string> => new Set(stems.filter((s) => s === 'carolin'));
    const w: EstimateRelevanceOptions['weigh'] = (stems) => ({ ...weigh({ camp: 3 })(stems), names: names(stems) });
    for (const q of ['did caroline go camping', 'did Caroline go camping']) {
      const s = await run(q, { weigh: w }, notes);
      expect(s.weighed.find((t) => t.word === 'caroline')).toMatchObject({ proper: true, info: 1 });
    }
  });

  it('lets the notes decide a word they hold only in another form of its stem, not everyday English', async () => {
    // "generics" and "generate" share the Porter stem "gener", which film subtitles write as a name
    // ("General"). A note that generates a code verifier is no note about Go generics.
    const notes = [
      { id: 'oauth', title: 'OAuth PKCE verifier lost on app restart', body: 'We generate the code verifier before the redirect.' },
    ];
    const names = (stems: readonly string[]): Set<string> => new Set(stems.filter((s) => s === 'gener'));
    const w: EstimateRelevanceOptions['weigh'] = (stems) => ({
      ...weigh({ gener: 1, verifi: 1 }, { gener: 0.49 })(stems),
      names: names(stems),
    });
    const s = await run('go generics with a type parameter', { weigh: w }, notes);
    expect(s.weighed.find((t) => t.word === 'generics')).toMatchObject({ proper: false, specific: false });
    expect(s.relevance.get('oauth')!.p).toBeLessThan(0.3);
  });

  it('decides a word the notes write by itself, not by the other forms of its stem', () => {
    const texts = ['We deploy with Go and build with Go modules. It keeps going; it goes on going.'];
    // "Go" (the language) stays a name, though "going" and "goes" share its stem and outnumber it.
    expect([...namesInTexts(texts, new Set(['go'])).names]).toEqual(['go']);
    // Another form never makes a word a name: notes on Express say nothing of "expressed".
    expect(namesInTexts(['the api runs on Express and its error middleware too'], new Set(['expressed']))).toEqual({
      names: new Set(),
      seen: new Set(['expressed']),
    });
    // A word found only in another form ("copy" for "copies") is seen, and no name.
    expect(namesInTexts(['Copy the file, then copy it again.'], new Set(['copies']))).toEqual({
      names: new Set(),
      seen: new Set(['copies']),
    });
  });
});

describe('a folder the prompt names', () => {
  const frozen = {
    id: 'v1-frozen',
    title: 'The v1 ingest endpoint is frozen',
    body: 'Handlers in internal/ingest/v1 take bug and security fixes only; new ingest features go into v2.',
  };

  it('counts the words of a path as one word, and only for words used nowhere else', () => {
    const terms = queryTerms('fix the typo under internal/ingest/v2, the ingest validation');
    const of = (w: string): number | undefined => terms.find((t) => t.word === w)?.pathWords;
    expect([of('internal'), of('v2'), of('ingest'), of('typo')]).toEqual([3, 3, undefined, undefined]);
    // Two segments of one-letter words and a fraction are not paths of content words.
    expect(queryTerms('a/b or 1/2 of the runs').some((t) => t.pathWords)).toBe(false);
    // A compiler's file at a line is the place; an endpoint, a socket, an image or a package is a subject.
    expect(queryTerms('error at --> compactor/src/segment.rs:142:13').find((t) => t.word === 'segment')?.pathWords).toBe(4);
    const subjects =
      'gzip for /v1/events, unix:///var/run/docker.sock, registry.internal/dev/ingestd:tag, @rollup/rollup-linux, ' +
      'our CI/CD over TCP/IP, go get github.com/spf13/cobra';
    expect(queryTerms(subjects).filter((t) => t.pathWords)).toEqual([]);
  });

  it('reads a prompt of hundreds of thousands of path characters in one pass', () => {
    // A backtracking pattern took a minute on the first of these; one pass takes milliseconds.
    const blobs = ['@'.repeat(200_000) + '/', '~a'.repeat(100_000) + '/', 'ab/cd '.repeat(50_000), 'src/app' + '.'.repeat(80_000) + 'a'];
    for (const blob of [...blobs, `src/app ${':1'.repeat(40_000)}`, `src/a${'.'.repeat(590)}a `.repeat(2_000)]) {
      expect(queryTerms(`fix ${blob} now`).length).toBeGreaterThan(0);
    }
  }, 30_000);

  it('does not make a note about that place relevant to the work done there', async () => {
    const weights = weigh({ ingest: 3, v1: 1, v2: 1, intern: 5, typo: 0, valid: 2 });
    const inFolder = await run('fix the recieved typo in the validation messages under internal/ingest/v2', { weigh: weights }, [frozen]);
    // The same words said outside a path are what the prompt is about, and count fully.
    const aboutIt = await run('add a new ingest feature: should it go into v1 or v2 of the ingest endpoint?', { weigh: weights }, [frozen]);
    expect(inFolder.relevance.get('v1-frozen')!.p).toBeLessThan(0.3);
    expect(aboutIt.relevance.get('v1-frozen')!.p).toBeGreaterThan(0.5);
  });
});
