import { describe, it, expect } from '@jest/globals';
import { bodySection, fieldValue, renderMarkdown, type RenderMarkdownInput } from '../../sinks/render/markdown.js';
import { expectGolden, makeCandidate, makeNote } from './helpers.js';
import type { ScoredCandidate } from '../../core/types.js';

const GLYPHS = new Map([
  ['bug-fix', '\u2692'],
  ['pattern', '\u2315'],
  ['decision', '\u2696'],
]);

function input(results: ScoredCandidate[], over: Partial<RenderMarkdownInput> = {}): RenderMarkdownInput {
  return { query: 'redis pool', results, field: null, maxChars: 0, economics: true, glyphs: GLYPHS, home: '/home/u', ...over };
}

/** Three notes, R = 100 each; D = 3000, 1500, 1200, each declared. */
function three(): ScoredCandidate[] {
  return [
    makeCandidate({
      displayId: 'lrn-a',
      keyInsight: 'Cap the pool size',
      howToApply: 'Set max_connections to 20',
      learningType: 'bug-fix',
      discoveryTokens: 3000,
    }),
    makeCandidate({ displayId: 'lrn-b', keyInsight: '', title: 'Title only', learningType: 'pattern', discoveryTokens: 1500 }),
    makeCandidate({ displayId: 'lrn-c', keyInsight: 'Prefer one client', learningType: 'decision', discoveryTokens: 1200 }),
  ];
}

const ENTRY_A = '- **[lrn-a]** Cap the pool size \u2014 \u2692 D:3000 \u2192 R:100 (-97%)\n  How to apply: Set max_connections to 20';
const ENTRY_B = '- **[lrn-b]** Title only \u2014 \u2315 D:1500 \u2192 R:100 (-93%)';
const ENTRY_C = '- **[lrn-c]** Prefer one client \u2014 \u2696 D:1200 \u2192 R:100 (-92%)';
/** The header as the renderer writes it: learnings shown, tokens of the whole block, savings of those shown. */
const header = (shown: number, injected: number, saved: number): string =>
  `## Prior learnings relevant to \`redis pool\` \u2014 ${shown} ${shown === 1 ? 'learning' : 'learnings'}, ~${injected} tok injected, est ~${saved} tok saved`;
/** The block for these entries, with the token count settled on its own text (characters / 4). */
function block(shown: number, saved: number, lines: string[]): string {
  let injected = 0;
  for (;;) {
    const text = [header(shown, injected, saved), ...lines].join('\n') + '\n';
    const next = Math.floor([...text].length / 4);
    if (next === injected) return text;
    injected = next;
  }
}
/** What the budget reserves for the header: the longest it can be (every result shown). */
const RESERVE = header(3, 10 * [ENTRY_A, ENTRY_B, ENTRY_C].join('\n').length, 5400).length + 1;

describe('renderMarkdown', () => {
  it('renders nothing for no results', () => {
    expect(renderMarkdown(input([]))).toBe('');
  });

  it('shows no discovery figure for a note that declares none (a Claude Code memory), and claims no savings for it', () => {
    const memory = makeCandidate({ displayId: 'merge-freeze', keyInsight: 'No merges on Friday', learningType: '', discoveryTokens: null });
    const alone = renderMarkdown(input([memory]));
    expect(alone).not.toMatch(/D:\d/);
    expect(alone).not.toContain('tok saved');
    expect(alone).toMatch(
      /^## Prior learnings relevant to `redis pool` \u2014 1 learning, ~\d+ tok injected\n- \*\*\[merge-freeze\]\*\* No merges on Friday\n$/,
    );
    // Beside a note with a real figure, only that note's savings are counted.
    const mixed = renderMarkdown(input([three()[0]!, memory]));
    expect(mixed).toContain('D:3000');
    expect(mixed).toContain('est ~2900 tok saved');
  });

  it('renders header totals of the block, entries with economics and how-to-apply lines', () => {
    const out = renderMarkdown(input(three()));
    expect(out).toBe(block(3, 5400, [ENTRY_A, ENTRY_B, ENTRY_C]));
    // "~N tok injected" is what the block costs (its characters / 4), not the notes' full texts (3 × 100).
    expect(out).toContain(`~${Math.floor([...out].length / 4)} tok injected`);
    expect(out).not.toContain('~300 tok injected');
  });

  it('matches the golden file', () => {
    const results = [
      ...three(),
      makeCandidate({
        displayId: 'plain/note',
        keyInsight: 'Reading costs more than it saves',
        learningType: 'mystery',
        discoveryTokens: 60,
      }),
    ];
    expectGolden(
      'render-markdown.md',
      renderMarkdown(input(results, { query: 'why does the redis pool run dry under load', maxChars: 2000 })),
    );
  });

  it('counts only the learnings the budget lets through (1 learning, not 3; their tokens and savings)', () => {
    const budget = RESERVE + ENTRY_A.length + 1;
    const out = renderMarkdown(input(three(), { maxChars: budget }));
    expect(out).toBe(block(1, 2900, [ENTRY_A, '- _(\u20262 more truncated)_']));
    expect(out.split('\n')[0]).toContain('1 learning,');
  });

  it('fits an entry that lands exactly on the budget, and not one char more', () => {
    const exact = RESERVE + ENTRY_A.length + 1 + ENTRY_B.length + 1;
    expect(renderMarkdown(input(three(), { maxChars: exact }))).toBe(block(2, 4300, [ENTRY_A, ENTRY_B, '- _(\u20261 more truncated)_']));
    expect(renderMarkdown(input(three(), { maxChars: exact - 1 }))).toBe(block(1, 2900, [ENTRY_A, '- _(\u20262 more truncated)_']));
  });

  it('renders header + truncation line with zero entries when the first entry overflows', () => {
    const out = renderMarkdown(input(three(), { maxChars: RESERVE }));
    expect(out).toBe(block(0, 0, ['- _(\u20263 more truncated)_']));
  });

  it('treats maxChars ≤ 0 as no budget', () => {
    expect(renderMarkdown(input(three(), { maxChars: -5 }))).toBe(renderMarkdown(input(three(), { maxChars: 0 })));
    expect(renderMarkdown(input(three(), { maxChars: 0 }))).not.toContain('truncated');
  });

  it('without economics is byte-identical to the plain format (no totals, no suffixes)', () => {
    const out = renderMarkdown(input(three(), { economics: false, glyphs: new Map() }));
    expect(out).toBe(
      '## Prior learnings relevant to `redis pool`\n' +
        '- **[lrn-a]** Cap the pool size\n' +
        '  How to apply: Set max_connections to 20\n' +
        '- **[lrn-b]** Title only\n' +
        '- **[lrn-c]** Prefer one client\n',
    );
  });

  it('renders negative savings as (+p%) and a negative saved total', () => {
    const out = renderMarkdown(input([makeCandidate({ displayId: 'x', keyInsight: 'k', discoveryTokens: 50 })]));
    expect(out).toBe(block(1, -50, ['- **[x]** k \u2014 \u00b7 D:50 \u2192 R:100 (+100%)']));
  });

  it('renders banker-rounded row percentages', () => {
    // D = 8, R = 7 → 12.5% → 12; D = 8, R = 5 (20 chars) → 37.5% → 38
    const a = makeCandidate({ displayId: 'a', keyInsight: 'a', discoveryTokens: 8, chunkText: 'x'.repeat(28) });
    const b = makeCandidate({ displayId: 'b', keyInsight: 'b', discoveryTokens: 8, chunkText: 'x'.repeat(20) });
    const out = renderMarkdown(input([a, b]));
    expect(out).toContain('D:8 \u2192 R:7 (-12%)');
    expect(out).toContain('D:8 \u2192 R:5 (-38%)');
  });

  it('uses the mode glyph, and · for an unknown learning type', () => {
    const out = renderMarkdown(input([makeCandidate({ learningType: 'Bug-Fix' }), makeCandidate({ learningType: 'weird' })]));
    const rows = out.split('\n').slice(1, 3);
    expect(rows[0]).toContain(' \u2014 \u2692 D:');
    expect(rows[1]).toContain(' \u2014 \u00b7 D:');
  });

  it('cuts the query at 80 code points', () => {
    const query = '\u{1F600}'.repeat(100);
    const out = renderMarkdown(input(three(), { query, economics: false }));
    expect(out.split('\n')[0]).toBe('## Prior learnings relevant to `' + '\u{1F600}'.repeat(80) + '`');
  });

  it('field mode shows the field value (else key insight, else title) and no how-to-apply', () => {
    const results = [
      makeCandidate({ displayId: 'f1', keyInsight: 'ki', howToApply: 'do it', frontmatter: { problem: 'Pool exhausted' } }),
      makeCandidate({ displayId: 'f2', keyInsight: 'ki2', howToApply: 'do it' }),
      makeCandidate({ displayId: 'f3', keyInsight: '', title: 'T3' }),
    ];
    expect(renderMarkdown(input(results, { field: 'problem', economics: false }))).toBe(
      '## Prior learnings relevant to `redis pool` (field: problem)\n- **[f1]** Pool exhausted\n- **[f2]** ki2\n- **[f3]** T3\n',
    );
    const withEcon = renderMarkdown(input(results.slice(0, 1), { field: 'problem' }));
    expect(withEcon).toBe(
      `## Prior learnings relevant to \`redis pool\` (field: problem) \u2014 1 learning, ~${Math.floor([...withEcon].length / 4)} tok injected, est ~900 tok saved\n` +
        '- **[f1]** Pool exhausted \u2014 \u00b7 D:1000 \u2192 R:100 (-90%)\n',
    );
  });

  it('does not claim a field no result has: no "(field: …)" header, key insights shown', () => {
    const out = renderMarkdown(input(three(), { field: 'bogus', economics: false }));
    expect(out.split('\n')[0]).toBe('## Prior learnings relevant to `redis pool`');
    expect(out).toContain('- **[lrn-a]** Cap the pool size');
  });

  it('treats an empty field name as no projection', () => {
    expect(renderMarkdown(input(three(), { field: '' }))).toBe(renderMarkdown(input(three())));
  });

  it('right-trims the output to a single trailing newline', () => {
    const out = renderMarkdown(input([makeCandidate({ keyInsight: 'trailing   ' })], { economics: false }));
    expect(out.endsWith('trailing\n')).toBe(true);
  });
});

describe('fieldValue', () => {
  const body = [
    '# Title',
    '',
    '## Problem',
    'The pool',
    '   runs   dry.',
    '',
    '## Root Cause',
    'Leaked   connections.',
    '### Detail',
    'hidden',
    '## Solution',
    '',
    'Close them in finally.',
    '',
  ].join('\n');

  it('reads scalar frontmatter values, trimmed and stringified', () => {
    expect(fieldValue(makeNote({ frontmatter: { rule: '  Always close  ' } }), 'rule')).toBe('Always close');
    expect(fieldValue(makeNote({ frontmatter: { n: 3 } }), 'n')).toBe('3');
    expect(fieldValue(makeNote({ frontmatter: { b: false } }), 'b')).toBe('false');
  });

  it('joins lists with "; " and JSON-encodes objects', () => {
    expect(fieldValue(makeNote({ frontmatter: { fix: ['a', ' b ', 3] } }), 'fix')).toBe('a; b; 3');
    expect(fieldValue(makeNote({ frontmatter: { meta: { k: 'v', n: 1 } } }), 'meta')).toBe('{"k":"v","n":1}');
  });

  it('prefers the frontmatter over the body', () => {
    expect(fieldValue(makeNote({ body, frontmatter: { problem: 'From fm' } }), 'problem')).toBe('From fm');
  });

  it('falls back to the body sections for problem, fix and root_cause', () => {
    const note = makeNote({ body, frontmatter: { problem: '  ', fix: [], root_cause: null } });
    expect(fieldValue(note, 'problem')).toBe('The pool runs dry.');
    expect(fieldValue(note, 'fix')).toBe('Close them in finally.');
    expect(fieldValue(note, 'root_cause')).toBe('Leaked connections.');
  });

  it('has no body fallback for rule or other names', () => {
    const note = makeNote({ body: body + '\n## Rule\nNever.\n', frontmatter: {} });
    expect(fieldValue(note, 'rule')).toBeNull();
    expect(fieldValue(note, 'missing')).toBeNull();
    expect(fieldValue(makeNote({ frontmatter: {} }), 'problem')).toBeNull();
  });

  it('caps a body section at 500 characters and treats an empty section as absent', () => {
    const long = makeNote({ body: `## Problem\n${'word '.repeat(200)}` });
    expect(fieldValue(long, 'problem')).toHaveLength(500);
    expect(bodySection('## Problem\n\n## Solution\nx', 'Problem')).toBeNull();
  });
});
