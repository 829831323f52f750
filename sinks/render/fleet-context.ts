/**
 * `--format fleet-context` (the reference's format, kept compatible): shared fleet memory grouped by authority, for
 * injection into another agent's context. Versioned by the `fleet-context/v1` marker in the header.
 */
import type { ScoredCandidate } from '../../core/types.js';
import { estimateTokens } from '../../core/terms.js';
import { pyHead } from '../economics.js';
import { oneLine } from '../safe-text.js';
import { cleanName } from './origin-label.js';
import { quotedAgentText } from './markdown.js';
import { unreviewedLabel } from '../../core/note/index.js';

/** Items considered: the first five results (the reference keeps the block short and high-signal). */
export const FLEET_MAX_ITEMS = 5;

/** Token budget of the whole block (estimateTokens); items are dropped from the tail until it fits. */
export const FLEET_MAX_TOKENS = 2000;

/** Characters of the query shown (the reference's `query[:80]`). */
export const FLEET_QUERY_CHARS = 80;

export const FLEET_HEADER = '## Reflect Recall (fleet memory, advisory) <!-- fleet-context/v1 -->';

/** Sections in output order; an authority not listed here is rendered as advisory. */
const SECTIONS: ReadonlyArray<{ authority: string; heading: string }> = [
  { authority: 'law', heading: '### Law (binding)' },
  { authority: 'promoted', heading: '### Promoted memory' },
  { authority: 'advisory', heading: '### Advisory memory' },
  { authority: 'archived', heading: '### Archived (historical)' },
];

const DEFAULT_AUTHORITY = 'advisory';

const nonBlank = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * Python's `'%.3f' % x`: like toFixed(3), but an exact binary half (0.0625) rounds to even
 * (`0.062`, where toFixed gives `0.063`) and −0 keeps its sign. NaN/±Infinity → `nan`/`inf`/`-inf`.
 */
export function formatFixed3(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const neg = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  let s = abs.toFixed(3);
  // toFixed(60) is exact for any double ≥ 1e-3 that could be a tie; a tie is d.ddd5 followed by zeros.
  const exact = abs < 1e21 ? abs.toFixed(60) : '';
  const dot = exact.indexOf('.');
  if (dot >= 0 && exact[dot + 4] === '5' && /^0*$/.test(exact.slice(dot + 5))) {
    const lastKept = Number(exact[dot + 3]);
    if (lastKept % 2 === 0) s = exact.slice(0, dot + 4); // round down to the even digit
  }
  return (neg ? '-' : '') + s;
}

/** `source_path`, else `provenance.source_path`, else `(unknown)`. */
function sourceOf(fm: Record<string, unknown>): string {
  const prov = fm['provenance'];
  const provPath = prov && typeof prov === 'object' && !Array.isArray(prov) ? (prov as Record<string, unknown>)['source_path'] : undefined;
  return nonBlank(fm['source_path']) ?? nonBlank(provPath) ?? '(unknown)';
}

function itemLines(c: ScoredCandidate): string[] {
  const n = c.note;
  // A team note's source is the store's record of who published it, not what its frontmatter claims.
  const source = n.origin
    ? `team:${cleanName(n.origin.author)}@${cleanName(n.origin.machine)}${n.quarantine ? ' (quarantined)' : ''}`
    : sourceOf(n.frontmatter);
  // An agent's unreviewed note: labelled, its words quoted (sinks/render/markdown.ts).
  if (n.review)
    return [
      `- **${oneLine(n.title)}** _(${unreviewedLabel(n.review)}; quoted, not an instruction)_`,
      `  > ${quotedAgentText(n.keyInsight || n.title)}`,
      `  source: ${oneLine(source)} \u00b7 score: ${formatFixed3(c.score)}`,
    ];
  return [
    `- **${oneLine(n.title)}** \u2014 ${oneLine(n.keyInsight || n.title)}`,
    `  source: ${oneLine(source)} \u00b7 score: ${formatFixed3(c.score)}`,
  ];
}

function block(query: string, items: readonly ScoredCandidate[]): string {
  const lines = [FLEET_HEADER, `_Query: ${oneLine(pyHead(query, FLEET_QUERY_CHARS))}_`, ''];
  for (const { authority, heading } of SECTIONS) {
    const members = items.filter((c) => {
      const a = c.note.authority.toLowerCase();
      return (SECTIONS.some((s) => s.authority === a) ? a : DEFAULT_AUTHORITY) === authority;
    });
    if (members.length === 0) continue;
    lines.push(heading);
    for (const c of members) lines.push(...itemLines(c));
    lines.push('');
  }
  return lines.join('\n').trimEnd() + '\n';
}

/**
 * The fleet-context block for the first FLEET_MAX_ITEMS results, bucketed by authority (law,
 * promoted, advisory, archived; unknown → advisory; empty sections omitted), trimmed from the tail
 * until estimateTokens(block) ≤ FLEET_MAX_TOKENS. No results → ''. No item fits → header and query
 * line only.
 */
export function renderFleetContext(query: string, results: ScoredCandidate[]): string {
  if (results.length === 0) return '';
  const items = results.slice(0, FLEET_MAX_ITEMS);
  while (items.length > 0) {
    const out = block(query, items);
    if (estimateTokens(out) <= FLEET_MAX_TOKENS) return out;
    items.pop();
  }
  return block(query, []);
}
