import { describe, it, expect } from '@jest/globals';
import { MAX_COMPONENT_CHARS, queryTerms, stemOf, textStems } from '../../core/stems.js';
import { MAX_ABBREVIATION_CHARS, containsTerm, noteTerms } from '../../operators/math/relevance.js';
import {
  MAX_WIDENED_FORMS,
  everydayPrefixes,
  namesAloneUnspecific,
  weighTerms,
  widenToMatches,
  type WeighPort,
} from '../../operators/weigh-terms.js';

/** A weigh port over a fixed table of document frequencies (100 live notes), recording what it was asked. */
function port(df: Record<string, number>, info: Record<string, number> = {}): WeighPort & { asked: string[][] } {
  const asked: string[][] = [];
  const fn = ((stems: readonly string[]) => {
    asked.push([...stems]);
    return {
      live: 100,
      df: new Map(stems.flatMap((s) => (df[s] === undefined ? [] : [[s, df[s]] as const]))),
      info: new Map(stems.map((s) => [s, info[s] ?? 0.5])),
    };
  }) as unknown as WeighPort & { asked: string[][] };
  fn.asked = asked;
  return fn;
}

describe('widenToMatches', () => {
  it('gives a word the document frequency of the form through which notes contain it ("taken" through "take")', () => {
    const weigh = port({ take: 42 });
    const { weighed } = weighTerms(queryTerms('what test has he taken'), weigh);
    expect(weighed.find((t) => t.word === 'taken')!.df).toBe(0); // the index counts exact stems only
    const notes = [noteTerms(textStems('we take the train'))];
    const out = widenToMatches(weighed, notes, weigh);
    expect(out.weighed.find((t) => t.word === 'taken')!.df).toBe(42);
    expect(out.weighed.find((t) => t.word === 'test')!.df).toBe(0); // no note contains it at all
    expect(out.degraded).toEqual([]);
    expect(weigh.asked.at(-1)).toEqual(['take']);
  });

  it('keeps the larger count and asks nothing when every match is exact', () => {
    const weigh = port({ [stemOf('config')]: 7, configur: 3 });
    const { weighed } = weighTerms(queryTerms('config'), weigh);
    expect(widenToMatches(weighed, [noteTerms(textStems('configuration'))], weigh).weighed[0]!.df).toBe(7);
    const calls = weigh.asked.length;
    expect(widenToMatches(weighed, [noteTerms(textStems('config files'))], weigh).weighed[0]!.df).toBe(7);
    expect(weigh.asked.length).toBe(calls);
  });

  it('looks up at most MAX_WIDENED_FORMS forms, however many the notes offer', () => {
    const weigh = port({});
    const { weighed } = weighTerms(queryTerms('configs'), weigh);
    // 200 notes, each containing "config" through a different longer form.
    const notes = Array.from({ length: 200 }, (_, i) => noteTerms([`config${i.toString(36).padStart(2, '0')}`]));
    widenToMatches(weighed, notes, weigh);
    expect(weigh.asked.at(-1)!.length).toBe(MAX_WIDENED_FORMS);
  });

  it('looks nothing up when the exact counts were unavailable (every term already counts as present)', () => {
    const weigh = port({});
    const calls = weigh.asked.length;
    const out = widenToMatches(weighTerms(queryTerms('taken'), port({})).weighed, [noteTerms(textStems('take'))], weigh, false);
    expect(weigh.asked.length).toBe(calls);
    expect(out.degraded).toEqual([]);
  });

  it('keeps the exact counts and records a degradation when the lookup fails', () => {
    const { weighed } = weighTerms(queryTerms('taken'), port({}));
    const failing: WeighPort = () => {
      throw new Error('index busy');
    };
    const out = widenToMatches(weighed, [noteTerms(textStems('take'))], failing);
    expect(out.weighed[0]!.df).toBe(0);
    expect(out.degraded).toHaveLength(1);
    expect(out.degraded[0]!.message).toMatch(/matched word forms unavailable: index busy/);
  });
});

describe('everydayPrefixes', () => {
  it('marks the prefixes of a term that are everyday words, and only reads word weights', () => {
    const weigh = port({}, { paint: 0.52, auth: 0.96, authent: 1 });
    const terms = weighTerms(queryTerms('paintball authentication'), weigh).weighed;
    const calls = weigh.asked.length;
    const out = everydayPrefixes(terms, weigh);
    expect(weigh.asked.length).toBe(calls + 1);
    const paintball = out.find((t) => t.word === 'paintball')!;
    expect(paintball.notVia!.has('paint')).toBe(true);
    expect(containsTerm(noteTerms(['paint']), paintball.stem, paintball.notVia)).toBe(false);
    const auth = out.find((t) => t.word === 'authentication')!;
    expect(auth.notVia?.has('auth') ?? false).toBe(false);
    expect(containsTerm(noteTerms(['auth']), auth.stem, auth.notVia)).toBe(true);
  });

  it('does not let the leading word of a camelCase identifier stand for it ("tenant" is not "tenantCfg"), counts or not', () => {
    const failing: WeighPort = () => ({ live: 1, df: new Map(), info: new Error('word counts missing') });
    for (const weigh of [port({}, { tenant: 0.9 }), failing]) {
      const out = everydayPrefixes(weighTerms(queryTerms('rename tenantCfg everywhere'), port({})).weighed, weigh);
      const glued = out.find((t) => t.word === 'tenantcfg')!;
      expect(containsTerm(noteTerms(['renam', 'tenant', 'group']), glued.stem, glued.notVia)).toBe(false);
    }
    expect(queryTerms('test ParseTenantHeader').find((t) => t.word === 'parsetenantheader')!.components).toEqual(
      expect.arrayContaining(['parse', 'parsetenant']),
    );
    // Only leading words the estimate would ever try as abbreviations are kept: a pasted
    // 20,000-character identifier gives a handful, not 10,000.
    expect(MAX_COMPONENT_CHARS).toBe(MAX_ABBREVIATION_CHARS);
    const huge = queryTerms(`fix ${'aB'.repeat(10_000)}`).find((t) => t.components)!.components!;
    expect(huge.every((c) => c.length <= MAX_COMPONENT_CHARS)).toBe(true);
    expect(huge.length).toBeLessThanOrEqual(2 * MAX_COMPONENT_CHARS);
    // Written apart, the words are the note's; a word that is no identifier keeps its abbreviations.
    const apart = everydayPrefixes(weighTerms(queryTerms('rename the tenant config'), port({})).weighed, port({}));
    expect(apart.every((t) => !t.components)).toBe(true);
    const auth = everydayPrefixes(weighTerms(queryTerms('authentication'), port({})).weighed, port({}, { auth: 0.96 }))[0]!;
    expect(containsTerm(noteTerms(['auth']), auth.stem, auth.notVia)).toBe(true);
  });

  it('leaves every prefix allowed when the word weights are unavailable', () => {
    const terms = weighTerms(queryTerms('paintball'), port({})).weighed;
    const failing: WeighPort = () => ({ live: 1, df: new Map(), info: new Error('word counts missing') });
    expect(everydayPrefixes(terms, failing)).toEqual(terms);
  });
});

describe('namesAloneUnspecific', () => {
  const weighed = (query: string, df: Record<string, number>, info: Record<string, number>) =>
    weighTerms(queryTerms(query), port(df, info)).weighed;

  it('makes a known name unspecific when every other specific word is unknown to the KB', () => {
    // Another conversation's John: the KB knows "john" but never mentions veterans.
    const terms = weighed('What events for veterans has John attended?', { john: 60, event: 7, attend: 2 }, { veteran: 0.68 });
    const out = namesAloneUnspecific(terms, 100);
    expect(out.find((t) => t.word === 'john')!.specific).toBe(false);
    expect(out.find((t) => t.word === 'veterans')!.specific).toBe(true);
  });

  it('counts an unknown name as unknown too ("Seattle")', () => {
    const out = namesAloneUnspecific(weighed('When was John in Seattle for a game?', { john: 60, game: 7 }, {}), 100);
    expect(out.find((t) => t.word === 'john')!.specific).toBe(false);
  });

  it('leaves names specific when the KB knows a specific word that is not a name, or knows every word', () => {
    const knowsYoga = weighed(
      'Who did John go to yoga with after the veterans event?',
      { john: 60, yoga: 6 },
      { yoga: 0.69, veteran: 0.68 },
    );
    expect(namesAloneUnspecific(knowsYoga, 100).find((t) => t.word === 'john')!.specific).toBe(true);
    const knowsAll = weighed('What kind of items does John collect at home?', { john: 60, kind: 30, item: 5, collect: 4, home: 9 }, {});
    expect(knowsAll.find((t) => t.word === 'john')!.proper).toBe(true);
    expect(namesAloneUnspecific(knowsAll, 100).find((t) => t.word === 'john')!.specific).toBe(true);
  });

  it('leaves a name that few notes carry specific: capitals mark tools as often as people', () => {
    // examples/kb-like: 8 of 34 notes name Postgres; the KB never mentions Gunicorn.
    const tools = weighTerms(queryTerms('how do I size the Postgres Pool for Gunicorn'), port({ postgr: 8, pool: 9 })).weighed;
    expect(tools.find((t) => t.word === 'postgres')!.proper).toBe(true);
    expect(namesAloneUnspecific(tools, 34)).toEqual(tools);
    // The same name in most notes of a large KB is a hub: it alone no longer makes a note about Gunicorn.
    const hub = weighTerms(queryTerms('how do I size the Postgres pool for Gunicorn'), port({ postgr: 600, pool: 9 })).weighed;
    expect(namesAloneUnspecific(hub, 1000).find((t) => t.word === 'postgres')!.specific).toBe(false);
  });

  it('changes nothing when the document frequencies could not be read (every term then counts as present)', () => {
    const failing: WeighPort = () => ({ live: 1, df: new Error('no index'), info: new Map([['veteran', 0.68]]) });
    const terms = weighTerms(queryTerms('What events for veterans has John attended?'), failing).weighed;
    expect(namesAloneUnspecific(terms, 100)).toEqual(terms);
  });
});

describe('weighTerms', () => {
  it('weighs "PR" like the "pull request" it stands for: an everyday coding word, never specific', () => {
    // Rare in everyday English, so without the list it weighed like "kafka": a prompt "open a PR
    // against main" made every note that mentions PRs look about it.
    const weigh = port({}, { [stemOf('pr')]: 0.9, [stemOf('prs')]: 0.9, kafka: 0.9 });
    for (const query of ['open a PR against main for kafka', 'review the PRs for kafka']) {
      const byStem = new Map(weighTerms(queryTerms(query), weigh).weighed.map((t) => [t.stem, t]));
      expect(byStem.get(stemOf(query.includes('PRs') ? 'prs' : 'pr'))).toMatchObject({ everyday: true, specific: false });
      expect(byStem.get('kafka')).toMatchObject({ everyday: false, specific: true });
    }
  });

  it('weighs git steps like "commit" and "merge": "revert your last change" is about no note that says "reverted"', () => {
    const weigh = port({}, { [stemOf('revert')]: 0.9, [stemOf('rebase')]: 0.9 });
    const byStem = new Map(weighTerms(queryTerms('revert your last change, then rebase'), weigh).weighed.map((t) => [t.stem, t]));
    for (const w of ['revert', 'rebase']) expect(byStem.get(stemOf(w))).toMatchObject({ everyday: true, specific: false });
  });
});

describe('weighTerms: words of every codebase', () => {
  it('weighs "config" or "repo" as an everyday coding word, though film subtitles never use them', () => {
    // Unknown to everyday English, they would weigh 1 like a tool's name: "where is the config
    // loaded" would be specific to any note that says "config".
    const { weighed } = weighTerms(queryTerms('where is the config loaded in this repo'), port({}, { config: 1, repo: 1, load: 0.55 }));
    for (const w of ['config', 'repo']) expect(weighed.find((t) => t.word === w)).toMatchObject({ everyday: true, specific: false });
    expect(weighed.find((t) => t.word === 'config')!.info).toBeLessThanOrEqual(0.5);
  });

  it('never takes one for a name, however the notes capitalise it ("Config.fromEnv()")', () => {
    const terms = queryTerms('where is the config loaded').map((t) => (t.word === 'config' ? { ...t, proper: true } : t));
    const { weighed } = weighTerms(terms, port({}, { config: 1, load: 0.55 }));
    expect(weighed.find((t) => t.word === 'config')).toMatchObject({ proper: false, specific: false, everyday: true });
  });
});
