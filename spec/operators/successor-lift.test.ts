/**
 * The successor lift: a note that another live note supersedes (frontmatter `supersedes`, or a
 * `supersedes` relationship of the entity graph) lends its replacement its relevance and ranks
 * below it; other relationships keep the entity-link share.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { liftSuccessors } from '../../operators/lift-successors.js';
import type { RelevanceEstimate } from '../../core/state.js';
import { candidate } from './states.js';
import { applyBoosts } from '../../operators/apply-boosts.js';
import { queryTerms } from '../../core/stems.js';
import { initialState, type RecallState } from '../../core/state.js';
import { BOOST_ALPHAS } from '../../pipeline/config/config.js';
import type { BoostName } from '../../core/types.js';
import {
  MAX_LINK_ENTITIES,
  MAX_SUPERSEDES_CLAIMS,
  closeIndex,
  linkedNotes,
  openIndex,
  refreshIndex,
  successorNotes,
  type IndexHandle,
} from '../../sources/index/index.js';
import { note } from '../helpers/notes.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';

const ALPHAS = Object.fromEntries(Object.keys(BOOST_ALPHAS).map((k) => [k, 0])) as Record<BoostName, number>;
const ctx = () => ({ nowMs: 0, queryTags: [], currentProject: '', domainHint: '' });
const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
  live: 100,
  df: new Map(stems.map((s) => [s, 1])),
  info: new Map(stems.map((s) => [s, 0.7])),
});

const OLD = {
  id: 'jwt',
  title: 'Mint and verify RS256 tokens for service auth',
  body: 'Services verify RS256 tokens from the identity service.',
};
const NEW = {
  id: 'sessions',
  title: 'Auth convention: server-side sessions',
  body: 'A shared session store; the old convention is retired.',
};
const QUERY = 'should I mint and verify RS256 tokens';
const PATH = (id: string): string => `documents/${id}.md`;

async function run(opts: Partial<EstimateRelevanceOptions>, ce: Map<string, number> | null = null): Promise<RecallState> {
  const s = initialState(QUERY, []);
  const candidates = [OLD, NEW].map((n, i) => ({
    note: note({ id: n.id, title: n.title }, n.body, PATH(n.id)),
    rrf: 1 / (61 + i),
    evidence: 1 / (i + 1),
    ranks: { bm25: i + 1 },
  }));
  return lastValueFrom(
    of({ ...s, candidates, ce }).pipe(
      estimateRelevance({ terms: queryTerms(QUERY), weigh, dateWindow: false, limit: 10, ...opts }),
      applyBoosts({ alphas: ALPHAS, context: ctx }),
    ),
  );
}

const succession = (): Map<string, Set<string>> => new Map([[PATH('jwt'), new Set([PATH('sessions')])]]);

describe('successor lift', () => {
  it('gives the superseding note the relevance of the note it supersedes, and ranks it above', async () => {
    const before = await run({});
    expect(before.relevance.get('sessions')!.p).toBeLessThan(before.relevance.get('jwt')!.p);
    const s = await run({ successors: succession });
    const old = s.relevance.get('jwt')!;
    expect(s.relevance.get('sessions')).toMatchObject({ p: old.p, source: 'successor', succeeds: ['jwt'] });
    expect(s.scored.map((c) => c.note.key)).toEqual(['sessions', 'jwt']);
  });

  it('ranks the successor above also when the cross-encoder prefers the older note', async () => {
    const ce = new Map([
      ['jwt', 2],
      ['sessions', -3],
    ]);
    const s = await run({ successors: succession }, ce);
    expect(s.relevance.get('sessions')!.p).toBeCloseTo(s.relevance.get('jwt')!.p, 12);
    const [first, second] = s.scored;
    expect([first!.note.key, second!.note.key]).toEqual(['sessions', 'jwt']);
    expect(first!.score).toBeGreaterThanOrEqual(second!.score);
  });

  it('along a chain lifts only the newest note: the one between is retired advice itself', async () => {
    const chain = [OLD, NEW, { id: 'sessions-v2', title: 'Auth convention: sessions in redis', body: 'Sessions moved to redis.' }];
    const candidates = chain.map((n, i) => ({
      note: note({ id: n.id, title: n.title }, n.body, PATH(n.id)),
      rrf: 1 / (61 + i),
      evidence: 1 / (i + 1),
      ranks: { bm25: i + 1 },
    }));
    const successors = (): Map<string, Set<string>> =>
      new Map([
        [PATH('jwt'), new Set([PATH('sessions')])],
        [PATH('sessions'), new Set([PATH('sessions-v2')])],
      ]);
    const s = await lastValueFrom(
      of({ ...initialState(QUERY, []), candidates, ce: null }).pipe(
        estimateRelevance({ terms: queryTerms(QUERY), weigh, dateWindow: false, limit: 10, successors }),
      ),
    );
    const p = (k: string): number => s.relevance.get(k)!.p;
    expect(s.relevance.get('sessions-v2')).toMatchObject({ p: p('jwt'), source: 'successor', succeeds: ['sessions'] });
    expect(s.relevance.get('sessions')).toMatchObject({ source: 'lexical', succeeds: ['jwt'] });
    expect(p('sessions')).toBeLessThan(p('jwt'));
  });

  it('degrades, never fails, when the lookup throws', async () => {
    const s = await run({
      successors: () => {
        throw new Error('index busy');
      },
    });
    expect(s.relevance.get('sessions')!.source).toBe('lexical');
    expect(s.degraded).toContainEqual(expect.objectContaining({ stage: 'relevance', message: 'successor lookup unavailable: index busy' }));
  });
});

describe('successorNotes (index)', () => {
  let kb: TempKb | null = null;
  let h: IndexHandle | null = null;
  afterEach(() => {
    if (h) closeIndex(h);
    kb?.cleanup();
    [kb, h] = [null, null];
  });

  const sidecar = (id: string, entity: string, rel: string): string =>
    `document_id: ${id}\nentities:\n  - name: "${entity}"\n    type: pattern\nrelationships:\n${rel}`;

  function indexed(write: (k: TempKb) => void): IndexHandle {
    kb = tempKb();
    kb.write('documents/jwt.md', noteText('jwt', OLD.title, OLD.body));
    kb.write('documents/sessions.md', noteText('sessions', NEW.title, NEW.body));
    kb.write('documents/other.md', noteText('other', 'Terraform state lock', 'force-unlock after a cancelled run'));
    write(kb);
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    return h;
  }
  const all = ['documents/jwt.md', 'documents/sessions.md', 'documents/other.md'];

  it('finds a `supersedes` relationship between an entity of the newer note and one of the older', () => {
    const x = indexed((k) => {
      k.write('documents/jwt.entities.yaml', sidecar('jwt', 'jwt-auth', '  []\n'));
      k.write(
        'documents/sessions.entities.yaml',
        sidecar('sessions', 'session-auth', '  - source: "session-auth"\n    target: "jwt-auth"\n    type: supersedes\n'),
      );
      // A migration guide names both ends: it is a successor too, not a predecessor of the new note.
      k.write('documents/migrate.md', noteText('migrate', 'Moving off JWTs', 'how to move a service to sessions'));
      k.write('documents/migrate.entities.yaml', 'document_id: migrate\nentities:\n  - name: "session-auth"\n  - name: "jwt-auth"\n');
    });
    // The declaring sidecar names both ends as well: the newer note is not its own predecessor.
    expect(successorNotes(x, [...all, 'documents/migrate.md'], 5, Date.now())).toEqual(
      new Map([['documents/jwt.md', new Set(['documents/sessions.md', 'documents/migrate.md'])]]),
    );
  });

  it("a sidecar that claims to supersede more than MAX_SUPERSEDES_CLAIMS entities makes its note nobody's successor", () => {
    const names = ['jwt-auth', 'tf-lock', 'a-one', 'b-two'];
    const x = indexed((k) => {
      k.write('documents/jwt.entities.yaml', sidecar('jwt', 'jwt-auth', '  []\n'));
      k.write('documents/other.entities.yaml', sidecar('other', 'tf-lock', '  []\n'));
      k.write(
        'documents/sessions.entities.yaml',
        sidecar(
          'sessions',
          'session-auth',
          names.map((n) => `  - source: "session-auth"\n    target: "${n}"\n    type: supersedes\n`).join(''),
        ),
      );
    });
    expect(names.length).toBeGreaterThan(MAX_SUPERSEDES_CLAIMS);
    expect(successorNotes(x, all, 5, Date.now())).toEqual(new Map());
  });

  it('a note whose files name more than MAX_LINK_ENTITIES entities is linked to nothing and succeeds nothing', () => {
    const many = Array.from({ length: MAX_LINK_ENTITIES + 1 }, (_, i) => `topic-${i}`);
    const x = indexed((k) => {
      k.write('documents/jwt.entities.yaml', sidecar('jwt', 'jwt-auth', '  []\n'));
      k.write(
        'documents/other.entities.yaml',
        sidecar('other', 'tf-lock', '  - source: "tf-lock"\n    target: "jwt-auth"\n    type: part_of\n'),
      );
      // A note that names everything: jwt's and other's entities among a crowd, and claims to replace jwt.
      k.write(
        'documents/sessions.entities.yaml',
        `document_id: sessions\nentities:\n${['session-auth', 'jwt-auth', 'tf-lock', ...many].map((n) => `  - name: "${n}"\n`).join('')}` +
          'relationships:\n  - source: "session-auth"\n    target: "jwt-auth"\n    type: supersedes\n',
      );
    });
    expect(linkedNotes(x, all, 5, Date.now()).get('documents/sessions.md')).toBeUndefined();
    expect(linkedNotes(x, all, 5, Date.now()).get('documents/other.md')).toEqual(new Set(['documents/jwt.md']));
    expect(successorNotes(x, all, 5, Date.now())).toEqual(new Map());
  });

  it('finds a frontmatter `supersedes`, and leaves a relationship of another type to the entity links', () => {
    const x = indexed((k) => {
      k.write('documents/sessions.md', noteText('sessions', NEW.title, NEW.body, { supersedes: 'jwt' }));
      k.write('documents/jwt.entities.yaml', sidecar('jwt', 'jwt-auth', '  []\n'));
      k.write(
        'documents/other.entities.yaml',
        sidecar('other', 'tf-lock', '  - source: "tf-lock"\n    target: "jwt-auth"\n    type: part_of\n'),
      );
    });
    expect(successorNotes(x, all, 5, Date.now())).toEqual(new Map([['documents/jwt.md', new Set(['documents/sessions.md'])]]));
    expect([...(linkedNotes(x, all, 5, Date.now()).get('documents/other.md') ?? [])]).toEqual(['documents/jwt.md']);
  });
});

describe('successor lift in a recall', () => {
  let kb: TempKb | null = null;
  afterEach(() => {
    kb?.cleanup();
    kb = null;
  });

  it('returns the replacement first, over the floor, when only the outdated note matches the words', async () => {
    kb = tempKb();
    kb.write('documents/jwt.md', noteText('jwt', OLD.title, OLD.body));
    kb.write('documents/sessions.md', noteText('sessions', NEW.title, `${NEW.body} It replaces service tokens.`));
    kb.write('documents/jwt.entities.yaml', 'document_id: jwt\nentities:\n  - name: "jwt-auth"\n');
    kb.write(
      'documents/sessions.entities.yaml',
      'document_id: sessions\nentities:\n  - name: "session-auth"\nrelationships:\n  - source: "session-auth"\n    target: "jwt-auth"\n    type: supersedes\n',
    );
    const r = await recallIn(kb, QUERY, { floor: 0.5 });
    expect(ids(r)).toEqual(['sessions', 'jwt']);
    expect(r.outcome!.results[0]!.relevanceSource).toBe('successor');
  });
});

describe('liftSuccessors and relevance a link lent', () => {
  it('passes it on as lent: the replacement is no surer than the linked note it replaces', () => {
    const [pool, oldGw, newGw] = ['pool', 'gw-old', 'gw-new'].map((id, i) => candidate(note({ id }), i));
    const est = (p: number, source: RelevanceEstimate['source']): RelevanceEstimate => ({ p, source }) as RelevanceEstimate;
    const rel = new Map([
      [pool!.note.key, est(0.95, 'lexical')],
      [oldGw!.note.key, est(0.63, 'linked')],
      [newGw!.note.key, est(0.2, 'lexical')],
    ]);
    liftSuccessors(rel, [pool!, oldGw!, newGw!], () => new Map([[oldGw!.note.path, new Set([newGw!.note.path])]]), []);
    expect([rel.get(newGw!.note.key)?.p, rel.get(newGw!.note.key)?.source]).toEqual([0.63, 'linked']);
  });
});
