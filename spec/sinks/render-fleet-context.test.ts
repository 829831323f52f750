import { describe, it, expect } from '@jest/globals';
import { FLEET_HEADER, formatFixed3, renderFleetContext } from '../../sinks/render/fleet-context.js';
import { estimateTokens } from '../../core/terms.js';
import { expectGolden, makeCandidate } from './helpers.js';
import type { ScoredCandidate } from '../../core/types.js';

function item(
  title: string,
  authority: string,
  over: { keyInsight?: string; fm?: Record<string, unknown>; score?: number } = {},
): ScoredCandidate {
  return makeCandidate(
    { displayId: title, title, authority, keyInsight: over.keyInsight ?? `${title} insight`, frontmatter: over.fm ?? {} },
    { score: over.score ?? 0.5 },
  );
}

describe('renderFleetContext', () => {
  it('renders nothing for no results', () => {
    expect(renderFleetContext('q', [])).toBe('');
  });

  it('matches the golden file', () => {
    const results = [
      item('Advisory one', 'advisory', { fm: { source_path: 'fleet/agent-a/notes.md' }, score: 0.91234 }),
      item('The law', 'law', { fm: { provenance: { source_path: '~/sessions/law.jsonl' } }, score: 1.5 }),
      item('Old news', 'archived', { keyInsight: '', score: 0.0625 }),
      item('Promoted', 'promoted', { score: 0.1875 }),
    ];
    expectGolden('render-fleet-context.md', renderFleetContext('deploy process for the api gateway', results));
  });

  it('orders sections law, promoted, advisory, archived and omits empty ones', () => {
    const out = renderFleetContext('deploy', [item('A', 'archived'), item('L', 'law'), item('V', 'advisory')]);
    expect(out).toBe(
      [
        FLEET_HEADER,
        '_Query: deploy_',
        '',
        '### Law (binding)',
        '- **L** \u2014 L insight',
        '  source: (unknown) \u00b7 score: 0.500',
        '',
        '### Advisory memory',
        '- **V** \u2014 V insight',
        '  source: (unknown) \u00b7 score: 0.500',
        '',
        '### Archived (historical)',
        '- **A** \u2014 A insight',
        '  source: (unknown) \u00b7 score: 0.500',
      ].join('\n') + '\n',
    );
    expect(out).not.toContain('Promoted memory');
  });

  it('files unknown or missing authority under advisory, in result order', () => {
    const out = renderFleetContext('q', [item('X', 'oracle'), item('Y', ''), item('Z', 'advisory')]);
    const section = out.split('### Advisory memory\n')[1]!;
    expect(section.match(/\*\*(\w)\*\*/g)).toEqual(['**X**', '**Y**', '**Z**']);
    expect(out.match(/^### /gm)).toHaveLength(1);
  });

  it('takes only the first five results', () => {
    const results = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((t) => item(t, 'law'));
    const out = renderFleetContext('q', results);
    expect(out.match(/^- \*\*/gm)).toHaveLength(5);
    expect(out).toContain('**e**');
    expect(out).not.toContain('**f**');
  });

  it('takes the source from source_path, then provenance.source_path, then (unknown)', () => {
    const out = renderFleetContext('q', [
      item('A', 'law', { fm: { source_path: 'top.md', provenance: { source_path: 'prov.md' } } }),
      item('B', 'law', { fm: { source_path: '  ', provenance: { source_path: 'prov.md' } } }),
      item('C', 'law', { fm: { provenance: 'not-a-map' } }),
    ]);
    expect(out.match(/source: [^ ]+/g)).toEqual(['source: top.md', 'source: prov.md', 'source: (unknown)']);
  });

  it('drops items from the tail until the block fits 2000 estimated tokens', () => {
    const huge = (t: string): ScoredCandidate => item(t, 'law', { keyInsight: 'w'.repeat(3000) });
    const out = renderFleetContext('q', ['h1', 'h2', 'h3', 'h4', 'h5'].map(huge));
    expect(estimateTokens(out)).toBeLessThanOrEqual(2000);
    expect(out.match(/^- \*\*/gm)).toHaveLength(2);
    expect(out).toContain('**h2**');
    expect(out).not.toContain('**h3**');
  });

  it('falls back to header and query line when no item fits', () => {
    const out = renderFleetContext('q', [item('big', 'law', { keyInsight: 'w'.repeat(9000) })]);
    expect(out).toBe(`${FLEET_HEADER}\n_Query: q_\n`);
  });

  it('cuts the query at 80 characters', () => {
    const out = renderFleetContext('x'.repeat(100), [item('A', 'law')]);
    expect(out.split('\n')[1]).toBe(`_Query: ${'x'.repeat(80)}_`);
  });
});

describe('formatFixed3 (Python %.3f)', () => {
  it.each([
    [0.5, '0.500'],
    [1.23456, '1.235'],
    [2, '2.000'],
    [0.0625, '0.062'],
    [0.1875, '0.188'],
    [1.0005, '1.000'], // 1.0005 is stored just below the half
    [-0.0625, '-0.062'],
    [-0, '-0.000'],
    [12.3456, '12.346'],
  ])('%p → %p', (x, want) => {
    expect(formatFixed3(x)).toBe(want);
  });
});
