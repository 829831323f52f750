/** The output budget of each MCP tool, and how an answer over it is cut (saying so). */
import { CHARS_PER_TOKEN } from '../../sinks/economics.js';

/** Output budget of each tool, in tokens (see the table above). */
export const MCP_BUDGETS = { search: 1500, index: 1000, timeline: 1000, hydrate: 4000, explain: 1500 } as const;
/** Ids one hydrate call takes: hydrate is for the few notes that survived index and timeline. */
export const HYDRATE_MAX_IDS = 5;

export const chars = (tokens: number): number => tokens * CHARS_PER_TOKEN;
const CUT_NOTE = (tokens: number): string => `\n… (cut to this tool's ${tokens}-token budget)`;

/** Cut text to a token budget at a line boundary, saying so. */
export function fitText(text: string, tokens: number): string {
  const max = chars(tokens);
  if (text.length <= max) return text;
  const note = CUT_NOTE(tokens);
  const head = text.slice(0, Math.max(0, max - note.length));
  const nl = head.lastIndexOf('\n');
  return `${(nl > head.length / 2 ? head.slice(0, nl) : head).trimEnd()}${note}`;
}

/**
 * JSON of a staged step within a budget. Hydrated notes are shortened before any is dropped: bodies
 * share what the budget leaves, then entity sidecars and frontmatter give way; only then are
 * trailing rows dropped. The result says `"truncated": true` when anything was cut.
 */
export function fitStep<T extends { results: unknown[] }>(step: T, tokens: number): string {
  const max = chars(tokens);
  const text = (s: unknown): string => JSON.stringify(s, null, 1);
  if (text(step).length <= max) return text(step);
  type Row = Record<string, unknown>;
  let rows = step.results.map((r) => ({ ...(r as Row) }));
  const fits = (): boolean => text({ ...step, results: rows, truncated: true }).length <= max;
  const hydrated = rows.filter((r) => typeof r['body'] === 'string');
  const lossier: ((r: Row) => void)[] = [
    (r) => void (r['entities'] !== undefined && r['entities'] !== null && (r['entities'] = '(omitted: over the tool budget)')),
    (r) => void (r['frontmatter'] !== undefined && (r['frontmatter'] = '(omitted: over the tool budget)')),
  ];
  if (hydrated.length) {
    const shareBodies = (): void => {
      const overhead = text({
        ...step,
        results: rows.map((r) => (typeof r['body'] === 'string' ? { ...r, body: '' } : r)),
        truncated: true,
      }).length;
      const each = Math.max(200, Math.floor((max - overhead) / hydrated.length) - 60);
      for (const r of rows) {
        const b = r['body'];
        if (typeof b === 'string' && b.length > each) r['body'] = `${b.slice(0, each)} … (body cut to the ${tokens}-token budget)`;
      }
    };
    const originals = rows.map((r) => r['body']);
    shareBodies();
    for (const step of lossier) {
      if (fits()) break;
      rows.forEach((r, i) => (r['body'] = originals[i]));
      for (const r of rows) step(r);
      shareBodies();
    }
  }
  while (rows.length > 1 && !fits()) rows = rows.slice(0, -1);
  return fitText(text({ ...step, results: rows, truncated: true }), tokens);
}
