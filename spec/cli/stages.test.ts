/** Staged recall step 1 (index rows, the ranked search and its lexical fallback), on the shared stages KB. */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { noteText, type TempKb } from '../helpers/kb.js';
import { UsageError } from '../../core/errors.js';
import { parseNote } from '../../core/note/note.js';
import {
  INDEX_ROW_MAX_TOKENS,
  indexRow,
  lexicalIndex,
  rowTokens,
  stageIndex,
  type StageSearch,
  type StagesIo,
  type StagesScope,
} from '../../cli/stages/stages.js';

import { LONG_TITLE, stagesKb } from './stages-fixture.js';

let kb: TempKb;
let io: StagesIo;
let scope: StagesScope;
const warnings: string[] = [];
beforeAll(() => {
  ({ kb, io, scope } = stagesKb(warnings));
});
afterAll(() => kb?.cleanup());

const withSearch = (search: StageSearch): StagesIo => ({ ...io, search });

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
    await expect(stageIndex('zanzibar', { ...scope, limit: 0 }, io)).rejects.toThrow(/--limit must be an integer between 1 and 1000/);
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
