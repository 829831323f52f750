/** Staged recall steps 2 and 3 (timeline, hydrate) and the workflow text, on the shared stages KB. */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { type TempKb } from '../helpers/kb.js';
import { UsageError } from '../../core/errors.js';
import { stageHydrate, stageTimeline, workflowText, type StagesIo, type StagesScope, type TimelineStep } from '../../cli/stages/stages.js';

import { stagesKb } from './stages-fixture.js';

let kb: TempKb;
let io: StagesIo;
let scope: StagesScope;
const warnings: string[] = [];
beforeAll(() => {
  ({ kb, io, scope } = stagesKb(warnings));
});
afterAll(() => kb?.cleanup());

const timelineIds = (t: TimelineStep): string[] => t.results.map((r) => r.id);
function okTimeline(t: TimelineStep): Extract<TimelineStep, { anchor: string }> {
  if ('error' in t) throw new Error(`timeline failed: ${t.error}`);
  return t;
}

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
