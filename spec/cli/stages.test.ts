import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { UsageError } from '../../core/errors.js';
import { parseNote } from '../../core/note.js';
import {
  INDEX_ROW_MAX_TOKENS,
  indexRow,
  lexicalIndex,
  rowTokens,
  stageHydrate,
  stageIndex,
  stageTimeline,
  workflowText,
  type StageSearch,
  type StagesIo,
  type StagesScope,
  type TimelineStep,
} from '../../cli/stages.js';

/**
 * One KB for the whole file (the stages only read it):
 *   lrn-001  created 2026-01-05, category testing
 *   lrn-002  created 2026-02-01, project alpha
 *   lrn-003  created 2026-03-10, file 003-zanzibar.md with an entities sidecar
 *   archived/lrn-006 created 2026-03-15 (soft-archived: never listed or hydrated)
 *   lrn-004  dated only by its `<!-- archived: ... -->` body header, 2026-04-02
 *   lrn-005  created 2026-05-20
 *   lrn-007  undated, file mtime 2026-06-15 (sorted by mtime)
 *   lrn-long created 2027-01-01, a 300-word title
 */
let kb: TempKb;
let io: StagesIo;
let scope: StagesScope;
const warnings: string[] = [];

const LONG_TITLE = Array.from({ length: 300 }, (_, i) => `zanzibar${i}`).join(' ');
const SIDECAR = `document_id: lrn-003
extracted_at: "2026-03-10T12:00:00Z"
entities:
  - name: Zanzibar
    type: service
    description: relationship-based authorisation service
  - name: QuotaManager
    type: function
    description: enforces per-tenant quotas
relationships:
  - source: QuotaManager
    target: Zanzibar
    type: uses
    description: checks tuples before charging quota
`;

beforeAll(() => {
  kb = tempKb();
  kb.write(
    'documents/001-flaky.md',
    noteText('lrn-001', 'flaky retries hide races', 'Retries mask a race in the worker pool.', {
      created: '2026-01-05',
      category: 'testing',
    }),
  );
  kb.write(
    'documents/002-cache.md',
    noteText('lrn-002', 'cache stampede on deploy', 'Warm the cache before switching traffic.', {
      created: '2026-02-01',
      project: 'alpha',
    }),
  );
  kb.write(
    'documents/003-zanzibar.md',
    noteText('lrn-003', 'quota accounting goes wrong', 'The zanzibar quota drift came from double counting tuples.', {
      created: '2026-03-10',
      project_id: 'beta',
    }),
  );
  kb.write('documents/003-zanzibar.entities.yaml', SIDECAR);
  kb.write(
    'archived/006-old.md',
    noteText('lrn-006', 'zanzibar quota archived copy', 'zanzibar quota drift, the old story.', { created: '2026-03-15' }),
  );
  kb.write(
    'documents/004-header.md',
    `---\nid: lrn-004\ntitle: pager noise\n---\n<!-- archived: 2026-04-02T09:00:00+00:00 -->\nSilence duplicate pages.\n`,
  );
  kb.write(
    'documents/005-logs.md',
    noteText('lrn-005', 'structured logs', 'Use JSON logs everywhere.', { created: '2026-05-20', agent: 'ops-bot' }),
  );
  const undated = kb.write('documents/007-undated.md', noteText('lrn-007', 'undated note', 'Nothing dates this one.'));
  const june = new Date('2026-06-15T00:00:00Z');
  fs.utimesSync(undated, june, june);
  kb.write('documents/long.md', noteText('lrn-long', LONG_TITLE, 'zanzibar mentioned once here.', { created: '2027-01-01' }));
  io = {
    env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state, REFLECT_METRICS_PATH: path.join(kb.state, 'metrics.jsonl') },
    cwd: kb.root,
    warn: (l) => warnings.push(l),
  };
  scope = { kb: kb.root, global: false, allBranches: false };
});
afterAll(() => kb?.cleanup());

const withSearch = (search: StageSearch): StagesIo => ({ ...io, search });
const timelineIds = (t: TimelineStep): string[] => t.results.map((r) => r.id);
function okTimeline(t: TimelineStep): Extract<TimelineStep, { anchor: string }> {
  if ('error' in t) throw new Error(`timeline failed: ${t.error}`);
  return t;
}

describe('stageIndex (step 1)', () => {
  it('returns ID-only rows with exactly id, title, score, relevance, project, date, best hit first, no bodies', async () => {
    const r = await stageIndex('zanzibar quota drift', scope, io);
    expect(r.step).toBe(1);
    expect(r.query).toBe('zanzibar quota drift');
    expect(r.count).toBe(r.results.length);
    expect(r.results[0]).toMatchObject({ id: 'lrn-003', title: 'quota accounting goes wrong', project: 'beta', date: '2026-03-10' });
    for (const row of r.results) {
      expect(Object.keys(row)).toEqual(['id', 'title', 'score', 'relevance', 'project', 'date']);
      expect(row.score).toBeGreaterThan(0);
      expect(row.relevance).toBeGreaterThanOrEqual(0);
      expect(row.relevance).toBeLessThanOrEqual(1);
      expect(Number(row.score.toFixed(4))).toBe(row.score);
    }
    const text = JSON.stringify(r);
    expect(text).not.toContain('double counting tuples');
    expect(text).not.toContain('How to apply');
    expect(r.results.map((x) => x.id)).not.toContain('lrn-006');
  });

  it('keeps every row within 100 estimated tokens, shaving a 300-word title', async () => {
    const r = await stageIndex('zanzibar', scope, io);
    const long = r.results.find((x) => x.id === 'lrn-long');
    expect(long).toBeDefined();
    expect(LONG_TITLE.startsWith(long!.title)).toBe(true);
    expect(long!.title.length).toBeLessThanOrEqual(120);
    for (const row of r.results) expect(rowTokens(row)).toBeLessThanOrEqual(INDEX_ROW_MAX_TOKENS);
  });

  it('shaves the title 20 characters at a time when the capped fields still exceed 100 tokens', () => {
    // Quotes double in JSON, so a 120-character title of half quotes next to a 120-character id is ~106 tokens.
    const title = 'a"'.repeat(150).slice(0, -1);
    const note = parseNote(
      noteText('x'.repeat(200), title, 'body', { project: 'p'.repeat(60), created: '2026-01-05T10:00:00+00:00' }),
      'documents/q.md',
      'documents',
    );
    const uncut = {
      id: 'x'.repeat(120),
      title: title.slice(0, 120),
      score: 0.5,
      project: 'p'.repeat(40),
      date: '2026-01-05T10:00:00+00:00',
    };
    expect(rowTokens(uncut)).toBeGreaterThan(INDEX_ROW_MAX_TOKENS);
    const row = indexRow(note, 0.5);
    expect(row).toMatchObject({ id: uncut.id, project: uncut.project, date: uncut.date });
    expect(rowTokens(row)).toBeLessThanOrEqual(INDEX_ROW_MAX_TOKENS);
    expect(row.title).toBe(title.slice(0, 100));
  });

  it('honours --limit (limit 1 → one row) and rejects an empty query or a bad limit', async () => {
    expect((await stageIndex('zanzibar quota drift', { ...scope, limit: 1 }, io)).results).toHaveLength(1);
    await expect(stageIndex('   ', scope, io)).rejects.toThrow(UsageError);
    await expect(stageIndex('zanzibar', { ...scope, limit: 0 }, io)).rejects.toThrow(/--limit must be an integer of at least 1/);
  });

  it('takes project from category/agent and date from created or the archived header', async () => {
    const flaky = (await stageIndex('flaky retries race worker pool', { ...scope, limit: 1 }, io)).results[0];
    expect(flaky).toMatchObject({ id: 'lrn-001', project: 'testing', date: '2026-01-05' });
    const pager = (await stageIndex('silence duplicate pages pager', { ...scope, limit: 1 }, io)).results[0];
    expect(pager).toMatchObject({ id: 'lrn-004', project: '', date: '2026-04-02T09:00:00+00:00' });
    const logs = (await stageIndex('structured JSON logs', { ...scope, limit: 1 }, io)).results[0];
    expect(logs).toMatchObject({ id: 'lrn-005', project: 'ops-bot', date: '2026-05-20' });
  });

  it('reports the engine score of a hit, rounded to 4 decimals', async () => {
    const note = parseNote(
      noteText('eng-1', 'engine hit', 'body text', { category: 'infra', created: '2026-02-03' }),
      'documents/eng.md',
      'documents',
    );
    const r = await stageIndex(
      'anything',
      scope,
      withSearch(async () => [{ note, score: 0.871249 }]),
    );
    expect(r.results).toEqual([{ id: 'eng-1', title: 'engine hit', score: 0.8712, project: 'infra', date: '2026-02-03' }]);
  });

  it('shows the file stem as id and title of a note without id, name or title', () => {
    const note = parseNote('---\ncreated: 2026-02-03\n---\nbare body\n', 'documents/bare-note.md', 'documents');
    expect(indexRow(note, 0.25)).toEqual({ id: 'bare-note', title: 'bare-note', score: 0.25, project: '', date: '2026-02-03' });
  });

  it('falls back to a lexical scan of the live notes when the pipeline returns nothing', async () => {
    const r = await stageIndex(
      'worker pool race',
      scope,
      withSearch(async () => []),
    );
    expect(r.results[0]).toMatchObject({ id: 'lrn-001', score: 1 });
    expect(r.results.every((x) => x.score > 0)).toBe(true);
  });

  it('falls back to the lexical scan when the pipeline fails, and says why on warn', async () => {
    warnings.length = 0;
    const r = await stageIndex(
      'zanzibar quota drift',
      scope,
      withSearch(async () => {
        throw new Error('engine exploded');
      }),
    );
    expect(r.results[0]).toMatchObject({ id: 'lrn-003', score: 1 });
    expect(r.results.map((x) => x.id)).not.toContain('lrn-006');
    expect(warnings.join('\n')).toMatch(/engine exploded.*lexical scan/);
  });

  it('finds a note through the fallback when the real pipeline matches nothing (word-prefix match)', async () => {
    // "zanzib" is no FTS token of any note, but it starts the body word "zanzibar".
    const r = await stageIndex('zanzib', scope, io);
    expect(r.results.map((x) => x.id).sort()).toEqual(['lrn-003', 'lrn-long']);
  });
});

describe('lexicalIndex', () => {
  const notes = [
    parseNote(noteText('b', 't', 'alpha beta gamma'), 'documents/b.md', 'documents'),
    parseNote(noteText('a', 't', 'alpha beta'), 'documents/a.md', 'documents'),
    parseNote(noteText('c', 't', 'alpha'), 'documents/c.md', 'documents'),
    parseNote(noteText('d', 't', 'unrelated words'), 'documents/d.md', 'documents'),
  ];

  it('scores by the fraction of query content terms in the body, keeps > 0, sorts by score then id', () => {
    const hits = lexicalIndex(notes, 'alpha beta', 10);
    expect(hits.map((h) => [h.note.key, h.score])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 0.5],
    ]);
  });

  it('honours the limit and matches nothing for a query without content terms', () => {
    expect(lexicalIndex(notes, 'alpha beta', 1).map((h) => h.note.key)).toEqual(['a']);
    expect(lexicalIndex(notes, 'the and of')).toEqual([]);
  });
});

describe('stageTimeline (step 2)', () => {
  it('returns depth-before notes, the anchor and depth-after notes in date order with the anchor flag', async () => {
    const t = okTimeline(await stageTimeline({ ...scope, anchor: 'lrn-003', depthBefore: 2, depthAfter: 1 }, io));
    expect(t).toMatchObject({ step: 2, anchor: 'lrn-003', depth_before: 2, depth_after: 1 });
    expect(timelineIds(t)).toEqual(['lrn-001', 'lrn-002', 'lrn-003', 'lrn-004']);
    expect(t.results.map((r) => r.anchor)).toEqual([false, false, true, false]);
    expect(t.results.map((r) => r.date)).toEqual(['2026-01-05', '2026-02-01', '2026-03-10', '2026-04-02T09:00:00+00:00']);
    for (const row of t.results) expect(Object.keys(row)).toEqual(['id', 'title', 'project', 'date', 'anchor']);
  });

  it('finds the anchor from a query', async () => {
    const t = okTimeline(await stageTimeline({ ...scope, query: 'zanzibar quota drift', depthBefore: 0, depthAfter: 0 }, io));
    expect(t.anchor).toBe('lrn-003');
    expect(timelineIds(t)).toEqual(['lrn-003']);
  });

  it('finds the anchor by file stem and sorts an undated note by its file mtime', async () => {
    const t = okTimeline(await stageTimeline({ ...scope, anchor: '005-logs', depthBefore: 1, depthAfter: 5 }, io));
    expect(t.anchor).toBe('lrn-005');
    expect(timelineIds(t)).toEqual(['lrn-004', 'lrn-005', 'lrn-007', 'lrn-long']);
    expect(t.results.find((r) => r.id === 'lrn-007')!.date).toBe('');
  });

  it('clamps the window at the start of the KB and negative depths to 0', async () => {
    const first = okTimeline(await stageTimeline({ ...scope, anchor: 'lrn-001', depthBefore: 3, depthAfter: 1 }, io));
    expect(timelineIds(first)).toEqual(['lrn-001', 'lrn-002']);
    const negative = okTimeline(await stageTimeline({ ...scope, anchor: 'lrn-002', depthBefore: -4, depthAfter: 1 }, io));
    expect(negative).toMatchObject({ depth_before: 0, depth_after: 1 });
    expect(timelineIds(negative)).toEqual(['lrn-002', 'lrn-003']);
  });

  it('returns the anchor alone with depths 0', async () => {
    const t = okTimeline(await stageTimeline({ ...scope, anchor: 'lrn-004', depthBefore: 0, depthAfter: 0 }, io));
    expect(t.results).toEqual([{ id: 'lrn-004', title: 'pager noise', project: '', date: '2026-04-02T09:00:00+00:00', anchor: true }]);
  });

  it('never lists archived notes and reports an unknown (or archived) anchor as data', async () => {
    const all = okTimeline(await stageTimeline({ ...scope, anchor: 'lrn-003', depthBefore: 10, depthAfter: 10 }, io));
    expect(timelineIds(all)).not.toContain('lrn-006');
    expect(await stageTimeline({ ...scope, anchor: 'nope' }, io)).toEqual({ step: 2, error: "anchor not found ('nope')", results: [] });
    expect(await stageTimeline({ ...scope, anchor: 'lrn-006' }, io)).toEqual({
      step: 2,
      error: "anchor not found ('lrn-006')",
      results: [],
    });
  });

  it('refuses a --kb folder with no notes at all, and needs an anchor or a query', async () => {
    const bare = path.join(kb.state, 'bare-kb');
    fs.mkdirSync(bare, { recursive: true });
    await expect(stageTimeline({ ...scope, kb: bare, anchor: 'lrn-001' }, io)).rejects.toThrow(
      /not a KB \(no documents\/ folder and no markdown files\)/,
    );
    await expect(stageTimeline({ ...scope }, io)).rejects.toThrow('timeline needs --anchor ID or a query');
    await expect(stageTimeline({ ...scope, anchor: ' ', query: '' }, io)).rejects.toThrow(UsageError);
  });
});

describe('stageHydrate (step 3)', () => {
  it('returns full notes in request order, with the sidecar or null, and found:false for unknown ids', async () => {
    const r = await stageHydrate(['lrn-003', 'nope', 'lrn-001'], scope, io);
    expect(r).toMatchObject({ step: 3, count: 3 });
    expect(r.results.map((x) => [x.id, x.found])).toEqual([
      ['lrn-003', true],
      ['nope', false],
      ['lrn-001', true],
    ]);
    expect(r.results[1]).toEqual({ id: 'nope', found: false });
    const [zan, , flaky] = r.results;
    if (!zan?.found || !flaky?.found) throw new Error('expected hydrated notes');
    expect(zan).toMatchObject({ title: 'quota accounting goes wrong', project: 'beta', date: '2026-03-10' });
    expect(zan.body).toContain('The zanzibar quota drift came from double counting tuples.');
    expect(zan.body).toContain('**How to apply:** quota accounting goes wrong');
    expect(zan.frontmatter).toMatchObject({ id: 'lrn-003', created: '2026-03-10', project_id: 'beta' });
    expect(zan.entities).toMatchObject({ document_id: 'lrn-003' });
    const names = (zan.entities!['entities'] as { name: string }[]).map((e) => e.name);
    expect(names).toEqual(['Zanzibar', 'QuotaManager']);
    expect(flaky.entities).toBeNull();
  });

  it('looks notes up by file stem and does not hydrate archived notes', async () => {
    const r = await stageHydrate(['003-zanzibar', 'lrn-006', '006-old'], scope, io);
    expect(r.results[0]).toMatchObject({ id: 'lrn-003', found: true });
    expect(r.results.slice(1)).toEqual([
      { id: 'lrn-006', found: false },
      { id: '006-old', found: false },
    ]);
  });

  it('uses the recall scope rules (GLOBAL_LEARNINGS_PATH when no --kb)', async () => {
    const envIo: StagesIo = { ...io, env: { ...io.env, GLOBAL_LEARNINGS_PATH: kb.root } };
    const r = await stageHydrate(['lrn-002'], { kb: null, global: false, allBranches: false }, envIo);
    expect(r.results[0]).toMatchObject({ id: 'lrn-002', found: true, project: 'alpha' });
  });

  it('needs at least one id', async () => {
    await expect(stageHydrate([], scope, io)).rejects.toThrow(UsageError);
    await expect(stageHydrate(['  '], scope, io)).rejects.toThrow('hydrate needs at least one ID');
  });
});

describe('workflowText', () => {
  const text = workflowText();

  it('is the markdown contract with the 3-layer pattern and numbered steps', () => {
    expect(text.startsWith('# Reflect Staged Recall Workflow\n')).toBe(true);
    expect(text).toContain('3-Layer Pattern (ALWAYS follow this)');
    expect(text).toMatch(/^1\. \*\*index\*\*/m);
    expect(text).toMatch(/^2\. \*\*timeline\*\*/m);
    expect(text).toMatch(/^3\. \*\*hydrate\*\*/m);
  });

  it('states the token costs and the filtering rules', () => {
    expect(text).toContain('~50-100 tokens per row');
    expect(text).toContain('~500-1000 tokens per hydrated note');
    expect(text).toMatch(/never hydrate without filtering through steps 1-2/i);
    expect(text).toContain('batch 2+ ids');
  });

  it('gives the exact command lines', () => {
    expect(text).toContain('recall stages index "QUERY" --limit 20');
    expect(text).toContain('recall stages timeline --anchor ID --depth-before 3 --depth-after 3');
    expect(text).toContain('recall stages hydrate ID [ID ...]');
  });
});
