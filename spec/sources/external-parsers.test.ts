import { describe, it, expect } from '@jest/globals';
import { parseLocalContext, parseNaiveContext, parseReflectOutput } from '../../sources/arms/reflect.js';
import { parseQmdOutput, qmdKeywordQueries } from '../../sources/arms/qmd.js';

describe('reflect output parsing', () => {
  it('keeps only frontmatter chunks of a naive context', () => {
    const ctx =
      '---\nid: a\n---\nbody a\n--New Chunk--\ncontinuation\n--New Chunk--\n---\nbroken: [\n---\nx\n--New Chunk--\n---\nname: b\n---\nbody b';
    expect(parseNaiveContext(ctx).map((c) => c.split('\n')[1])).toEqual(['id: a', 'name: b']);
  });

  it('reads multi-line Sources rows and entity names from a local context', () => {
    const ctx =
      '-----Entities-----\n```csv\nid,\tentity,\ttype,\tdescription,\trank\n0,\t"API-GATEWAY",\t"SERVICE",\t"edge",\t2\n1,\t"Redis Pool",\t"TECH",\t"pool",\t1\n```\n' +
      '-----Sources-----\n```csv\nid,\tcontent\n0,\t---\nid: a\ntitle: "t, with comma"\n---\nline one\nline two\n1,\tno frontmatter here\n2,\t---\nid: b\n---\nb body\n```';
    const local = parseLocalContext(ctx);
    expect(local.entities).toEqual(['api-gateway', 'redis-pool']);
    expect(local.chunks).toHaveLength(2);
    expect(local.chunks[0]).toContain('line two');
  });

  it('treats empty results as no notes and an error envelope or non-object as errors', () => {
    expect(parseReflectOutput('{"query":"q","mode":"naive","results":[],"message":"No results found"}', 'naive', null)).toEqual([]);
    expect(() => parseReflectOutput('{"error":"boom","results":[]}', 'naive', null)).toThrow(/boom/);
    expect(() => parseReflectOutput('[1,2]', 'naive', null)).toThrow(/not an object/);
    expect(() => parseReflectOutput('Traceback (most recent call last)', 'naive', null)).toThrow(/not JSON/);
  });
});

describe('qmd output and queries', () => {
  it('reads JSON results and falls back to the text form', () => {
    expect(
      parseQmdOutput('[{"file":"qmd://learnings/a.md"},{"file":"qmd://other/b.md"},{"file":"qmd://learnings/sub/c.md"}]', 'learnings'),
    ).toEqual(['a.md', 'sub/c.md']);
    const text =
      'qmd://learnings/learnings/x.md:11 #ed7d1c\nTitle: X\nqmd://learnings/learnings/x.md:40 #ed7d1c\nqmd://learnings/y.md:2 #aa';
    expect(parseQmdOutput(text, 'learnings')).toEqual(['learnings/x.md', 'y.md']);
    expect(parseQmdOutput('No results found.', 'learnings')).toEqual([]);
  });

  it('turns a prompt into an all-terms query plus its most specific single terms', () => {
    expect(qmdKeywordQueries('gateway returning 504 errors during traffic spikes, what is the root cause')).toEqual([
      'gateway returning 504 errors during traffic spikes root cause',
      'returning',
      'gateway',
      'traffic',
      'errors',
    ]);
    expect(qmdKeywordQueries('tmux')).toEqual(['tmux']);
    expect(qmdKeywordQueries('what is it?')).toEqual([]);
  });
});
