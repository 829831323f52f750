/**
 * The names of the module constructs an edit writes, in the words notes use for them: a note titled
 * "Named imports from CommonJS packages fail under NodeNext ESM" is about `import { groupBy } from
 * "lodash"`, which says "import" but never "named". Each construct the added lines write becomes a
 * two-word phrase of the call (features.ts), matched as a note's adjacent words are. Only the
 * JavaScript/TypeScript module forms, whose names ("named import", "default export") are the ones
 * the language's own documentation uses. Pure.
 */

/**
 * A construct's name (its two words) and how code writes it (one line). Type-only forms (`import type
 * { X }`, `export type`, `export interface`) are left out: the compiler erases them, so they never
 * meet what a note about modules at run time warns of. Each pattern opens with `^[ \t]*`, not `^\s*`:
 * under the `m` flag the latter retries every line break of a run of blank lines, which took
 * quadratic time on a hostile text.
 */
const CONSTRUCTS: readonly { words: [string, string]; re: RegExp }[] = [
  { words: ['named', 'import'], re: /^[ \t]*import[ \t]+(?!type\b)(?:[\w$]+[ \t]*,[ \t]*)?\{[^}]*\}[ \t]*from[ \t]*['"]/m },
  { words: ['default', 'import'], re: /^[ \t]*import[ \t]+(?!type\b)[\w$]+[ \t]*(?:,[ \t]*\{[^}]*\}[ \t]*)?from[ \t]*['"]/m },
  { words: ['namespace', 'import'], re: /^[ \t]*import[ \t]+\*[ \t]+as[ \t]+[\w$]+[ \t]+from[ \t]*['"]/m },
  { words: ['dynamic', 'import'], re: /(?<![\w$.])import[ \t]*\([ \t]*['"`]/ },
  { words: ['default', 'export'], re: /^[ \t]*export[ \t]+default\b/m },
  { words: ['named', 'export'], re: /^[ \t]*export[ \t]+(?:\{|const\b|let\b|function\b|class\b|async[ \t]+function\b)/m },
];

/** A note's words recommending a construct ("Prefer named exports", "switch to the default import"). */
const PROSE_RE =
  /\b(prefer|use|using|switch to|stick to|always use)[ \t]+(?:the[ \t]+|a[ \t]+)?(named|default|namespace|dynamic)[ \t]+(import|export)s?\b/gi;
/** A negation just before such words ("don't use default exports", "never use a namespace import"). */
const NEGATED_RE = /\b(?:not|never|no|don'?t|avoid|instead of|rather than)\b[^.;!?\n]{0,12}$/i;

/** The construct tokens features.ts adds (`named-import`): their words are code words, and they still count. */
export const CONSTRUCT_TOKENS: ReadonlySet<string> = new Set(CONSTRUCTS.map((c) => c.words.join('-')));

/** Longest text read: an edit's added lines are already bounded (tool-call.ts), a note's advice is not. */
const MAX_CHARS = 20_000;

/** The constructs `added` (the lines an edit adds, or a note's advice) writes, each as its two words. */
export function constructsWritten(added: string): [string, string][] {
  const text = added.slice(0, MAX_CHARS);
  return CONSTRUCTS.filter((c) => c.re.test(text)).map((c) => c.words);
}

/** The constructs a note's prose recommends ("Prefer named exports"), as construct tokens (`named-export`). */
export function constructsRecommended(text: string): string[] {
  const src = text.slice(0, MAX_CHARS);
  const out = new Set<string>();
  for (const m of src.matchAll(PROSE_RE)) {
    const at = m.index ?? 0;
    if (!NEGATED_RE.test(src.slice(Math.max(0, at - 30), at))) out.add(`${m[2]!.toLowerCase()}-${m[3]!.toLowerCase()}`);
  }
  return [...out];
}
