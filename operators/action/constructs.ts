/**
 * The names of the module constructs an edit writes, in the words notes use for them: a note titled
 * "Named imports from CommonJS packages fail under NodeNext ESM" is about `import { groupBy } from
 * "lodash"`, which says "import" but never "named". Each construct the added lines write becomes a
 * two-word phrase of the call (features.ts), matched as a note's adjacent words are. Only the
 * JavaScript/TypeScript module forms, whose names ("named import", "default export") are the ones
 * the language's own documentation uses. Pure.
 */
import { stemOf } from '../../core/stems.js';

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

/**
 * A note's words recommending a construct, as an instruction: the verb opens a sentence or clause
 * ("Prefer named exports", "…: switch to the default import"), or follows "always" or "just". Not
 * "Using named imports … crashes" (a symptom), "we used to use default exports", nor "Do not, in
 * any package, use default exports".
 */
const PROSE_RE =
  /(?:^|[.;:!?(\n]\s*|\b(?:always|just|only)\s+)(prefer|use|switch to|stick to)[ \t]+(?:the[ \t]+|a[ \t]+)?(named|default|namespace|dynamic)[ \t]+(import|export)s?\b/gim;
/** A negation earlier in the same sentence ("never use", "don’t", with either apostrophe). */
const NEGATED_RE = /\b(?:not|never|no|don['’]?t|avoid|instead of|rather than)\b[^.;!?\n]*$/i;
/** Lines that are comments (`// later: import("./x")`, ` * @example`, `# …`): no construct the code writes. */
const COMMENT_LINE_RE = /^[ \t]*(?:\/\/|\/\*|\*|#).*$/gm;

/**
 * The stems of a note about JavaScript modules (one of them in what it is about): a construct's
 * words count only for such a note. "Metabase caps the default export at 1,048,575 rows" says
 * "default export" of data, not of a module.
 */
export const MODULE_TOPIC_STEMS: ReadonlySet<string> = new Set(
  'esm commonjs cjs mjs nodenext module require bundler webpack rollup esbuild vite barrel typescript javascript tsconfig'
    .split(' ')
    .map(stemOf),
);

/** Whether a note's focus stems say it is about JavaScript modules (MODULE_TOPIC_STEMS). */
export function aboutModules(stems: ReadonlySet<string>): boolean {
  for (const s of MODULE_TOPIC_STEMS) if (stems.has(s)) return true;
  return false;
}

/** The construct tokens features.ts adds (`named-import`): their words are code words, and they still count. */
export const CONSTRUCT_TOKENS: ReadonlySet<string> = new Set(CONSTRUCTS.map((c) => c.words.join('-')));

/**
 * Longest text read: an edit's added lines are already bounded (tool-call.ts), a note's advice is
 * not, and `\{[^}]*` retries each brace of a hostile run of `import {` lines (8,000 characters: a few ms).
 */
const MAX_CHARS = 8_000;

/** An import of names in braces only (`import { type A, type B } from "x"`), its braces' content captured. */
const BRACES_IMPORT_RE = /^[ \t]*import[ \t]*\{([^}]*)\}[ \t]*from[ \t]*['"][^'"\n]*['"]/gm;
/** Whether every name in an import's braces is a type (`type A, type B`): the compiler erases the import. */
const typesOnly = (names: string): boolean => {
  const parts = names
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return parts.length > 0 && parts.every((n) => /^type\s/.test(n));
};

/** The constructs `added` (the lines an edit adds, or a note's advice) writes, each as its two words. */
export function constructsWritten(added: string): [string, string][] {
  const text = added
    .slice(0, MAX_CHARS)
    .replace(COMMENT_LINE_RE, '')
    .replace(BRACES_IMPORT_RE, (line, names: string) => (typesOnly(names) ? '' : line));
  return CONSTRUCTS.filter((c) => c.re.test(text)).map((c) => c.words);
}

/** The constructs a note's prose recommends ("Prefer named exports"), as construct tokens (`named-export`). */
export function constructsRecommended(text: string): string[] {
  const src = text.slice(0, MAX_CHARS);
  const out = new Set<string>();
  for (const m of src.matchAll(PROSE_RE)) {
    const at = (m.index ?? 0) + m[0].length - m[0].trimStart().length;
    const sentence =
      src
        .slice(Math.max(0, at - 200), at)
        .split(/[.!?\n]/)
        .pop() ?? '';
    if (!NEGATED_RE.test(sentence)) out.add(`${m[2]!.toLowerCase()}-${m[3]!.toLowerCase()}`);
  }
  return [...out];
}
