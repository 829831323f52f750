import { describe, it, expect } from '@jest/globals';
import { renderJson, toJsonEnvelope, type RenderJsonOptions } from '../../sinks/render/json.js';
import { temporalToJson, type TemporalConstraint } from '../../sources/query/temporal-grammar.js';
import { expectGolden, makeCandidate, makeNote, makeOutcome } from './helpers.js';
import type { RecallOutcome } from '../../core/types.js';

const GLYPHS = new Map([['bug-fix', '\u2692']]);
const OPTS: RenderJsonOptions = { field: null, economics: true, glyphs: GLYPHS, home: '/home/u' };

const TEMPORAL: TemporalConstraint = {
  start: new Date(2026, 5, 1, 0, 0, 0, 0),
  end: new Date(2026, 5, 7, 23, 59, 59, 999),
  confidence: 0.8999,
  matchedText: 'last week',
};

function outcome(over: Partial<RecallOutcome> = {}): RecallOutcome {
  const results = [
    makeCandidate(
      {
        displayId: 'lrn-redis-pool',
        path: 'documents/redis-pool.md',
        title: 'Redis pool exhaustion',
        keyInsight: 'Cap the pool and close clients in finally',
        howToApply: 'Set max_connections=20',
        confidence: 'HIGH',
        confidenceNum: 0.9,
        tags: ['redis', 'pool'],
        learningType: 'bug-fix',
        discoveryTokens: 3000,
        frontmatter: { problem: 'Pool runs dry' },
      },
      { ranks: { temporal: 2, bm25: 1, vector: 3 }, score: 1.234 },
    ),
    makeCandidate(
      {
        displayId: 'lrn-old',
        path: 'archived/old.md',
        location: 'archived',
        title: 'Old approach',
        keyInsight: '',
        confidence: 'LOW',
        confidenceNum: 0.3,
        tags: [],
        archivedAt: '2026-01-02T03:04:05',
        discoveryTokens: null,
      },
      { ranks: { graph: 1 }, score: 0.25 },
    ),
  ];
  return makeOutcome({
    query: 'redis pool last week',
    mode: 'hybrid',
    results,
    ranked: results,
    temporal: TEMPORAL,
    cacheTier: 'fuzzy',
    degraded: [{ stage: 'vector', reason: 'timeout', message: 'vector arm timed out after 60000 ms' }],
    arms: [
      { arm: 'vector', status: 'timeout', hits: [], ms: 60000, message: 'timed out' },
      { arm: 'bm25', status: 'ok', hits: [{ note: makeNote(), score: 3.2 }], ms: 4 },
    ],
    ...over,
  });
}

const parse = (s: string): Record<string, unknown> => JSON.parse(s) as Record<string, unknown>;

describe('renderJson', () => {
  it('matches the golden file (arm timings masked)', () => {
    expectGolden('render-json.json', renderJson(outcome(), { ...OPTS, field: 'problem' }), [[/"ms": \d+/g, '"ms": "<ms>"']]);
  });

  it('is pretty-printed with a 2-space indent and a trailing newline', () => {
    const out = renderJson(outcome(), OPTS);
    expect(out.endsWith('}\n')).toBe(true);
    expect(out.split('\n')[1]).toBe('  "query": "redis pool last week",');
    expect(out).toBe(JSON.stringify(JSON.parse(out), null, 2) + '\n');
  });

  it('orders the top-level keys as the contract says', () => {
    expect(Object.keys(parse(renderJson(outcome(), OPTS)))).toEqual([
      'query',
      'mode',
      'count',
      'ood_gated',
      'floor',
      'abstained',
      'temporal',
      'field',
      'economics',
      'cache_tier',
      'results',
      'weak',
      'degraded',
      'arms',
    ]);
  });

  it('orders result keys, with field_value and economics only when asked for', () => {
    const base = ['id', 'title', 'key_insight', 'confidence', 'confidence_num', 'tags', 'how_to_apply', 'archived_at'];
    const tail = ['score', 'ce', 'relevance', 'arms', 'path'];
    const keys = (opts: RenderJsonOptions): string[] =>
      Object.keys((parse(renderJson(outcome(), opts))['results'] as Array<Record<string, unknown>>)[0]!);
    expect(keys(OPTS)).toEqual([...base, 'economics', ...tail]);
    expect(keys({ ...OPTS, economics: false })).toEqual([...base, ...tail]);
    expect(keys({ ...OPTS, field: 'problem' })).toEqual([...base, 'field_value', 'economics', ...tail]);
    expect(keys({ ...OPTS, field: 'problem', economics: false })).toEqual([...base, 'field_value', ...tail]);
  });

  it('fills the values from the outcome', () => {
    const env = toJsonEnvelope(outcome(), { ...OPTS, field: 'fix' });
    expect(env.count).toBe(2);
    expect(env.ood_gated).toBe(false);
    expect(env.temporal).toEqual(temporalToJson(TEMPORAL));
    expect(env.temporal).toEqual({
      start: '2026-06-01T00:00:00',
      end: '2026-06-07T23:59:59.999999',
      confidence: 0.9,
      matched_text: 'last week',
    });
    expect(env.field).toBe('fix');
    expect(env.cache_tier).toBe('fuzzy');
    expect(env.economics).toEqual({ count: 2, read_tokens: 200, discovery_tokens: 4500, saved_tokens: 4300, savings_pct: 96 });
    const [first, second] = env.results;
    expect(first).toMatchObject({
      id: 'lrn-redis-pool',
      confidence: 'HIGH',
      confidence_num: 0.9,
      tags: ['redis', 'pool'],
      archived_at: null,
      field_value: null,
      economics: { discovery_tokens: 3000, read_tokens: 100, savings_pct: 97, glyph: '\u2692' },
      score: 1.234,
      arms: ['vector', 'bm25', 'temporal'],
      path: 'documents/redis-pool.md',
    });
    expect(second).toMatchObject({ key_insight: '', archived_at: '2026-01-02T03:04:05', arms: ['graph'], economics: { glyph: '\u00b7' } });
    expect(env.degraded).toEqual(outcome().degraded);
    expect(env.arms).toEqual([
      { arm: 'vector', status: 'timeout', hits: 0, ms: 60000, message: 'timed out' },
      { arm: 'bm25', status: 'ok', hits: 1, ms: 4 },
    ]);
    expect(Object.keys(env.arms[1]!)).toEqual(['arm', 'status', 'hits', 'ms']);
  });

  it('field_value is the field or null, never the key insight', () => {
    const results = parse(renderJson(outcome(), { ...OPTS, field: 'problem' }))['results'] as Array<Record<string, unknown>>;
    expect(results.map((r) => r['field_value'])).toEqual(['Pool runs dry', null]);
  });

  it('treats an empty field name as no projection', () => {
    expect(renderJson(outcome(), { ...OPTS, field: '' })).toBe(renderJson(outcome(), OPTS));
  });

  it('economics is null when off, and results carry no economics', () => {
    const env = parse(renderJson(outcome(), { ...OPTS, economics: false }));
    expect(env['economics']).toBeNull();
    expect((env['results'] as Array<Record<string, unknown>>).every((r) => !('economics' in r))).toBe(true);
  });

  it('renders an empty outcome as count 0 with null temporal', () => {
    const env = parse(renderJson(makeOutcome({ query: 'nothing' }), OPTS));
    expect(env).toMatchObject({ query: 'nothing', count: 0, temporal: null, results: [], arms: [], degraded: [] });
    expect(env['economics']).toEqual({ count: 0, read_tokens: 0, discovery_tokens: 0, saved_tokens: 0, savings_pct: 0 });
  });

  it('prints a persona hit as one compact line', () => {
    const out = renderJson(
      outcome({
        persona: { project_id: 'acme', field_name: 'deploy_target', value: 'fly.io', confidence: 0.92 },
        query: 'where do we deploy',
      }),
      OPTS,
    );
    expect(out).toBe(
      '{"persona":{"project_id":"acme","field_name":"deploy_target","value":"fly.io","confidence":0.92,"type":"persona","tier":"persona"},"query":"where do we deploy"}\n',
    );
    expect(out.trimEnd().includes('\n')).toBe(false);
  });
});
