/**
 * The names of the module constructs an edit writes, in the words notes use for them: a note titled
 * "Named imports from CommonJS packages fail under NodeNext ESM" is about `import { groupBy } from
 * "lodash"`, which says "import" but never "named". Each construct the added lines write becomes a
 * two-word phrase of the call (features.ts), matched as a note's adjacent words are. Only the
 * JavaScript/TypeScript module forms, whose names ("named import", "default export") are the ones
 * the language's own documentation uses. Pure.
 */

/** A construct's name (its two words) and how code writes it (one line). */
const CONSTRUCTS: readonly { words: [string, string]; re: RegExp }[] = [
  { words: ['named', 'import'], re: /^\s*import\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{[^}]*\}\s*from\s*['"]/m },
  { words: ['default', 'import'], re: /^\s*import\s+[\w$]+\s*(?:,\s*\{[^}]*\}\s*)?from\s*['"]/m },
  { words: ['namespace', 'import'], re: /^\s*import\s+\*\s+as\s+[\w$]+\s+from\s*['"]/m },
  { words: ['dynamic', 'import'], re: /(?<![\w$.])import\s*\(\s*['"`]/ },
  { words: ['default', 'export'], re: /^\s*export\s+default\b/m },
  { words: ['named', 'export'], re: /^\s*export\s+(?:\{|const\b|let\b|function\b|class\b|async\s+function\b|type\b|interface\b)/m },
];

/** The construct tokens features.ts adds (`named-import`): their words are code words, and they still count. */
export const CONSTRUCT_TOKENS: ReadonlySet<string> = new Set(CONSTRUCTS.map((c) => c.words.join('-')));

/** Longest added text read (a generated file of megabytes says no more than its first lines). */
const MAX_CHARS = 20_000;

/** The constructs `added` (the lines an edit adds) writes, each as its two words. */
export function constructsWritten(added: string): [string, string][] {
  const text = added.slice(0, MAX_CHARS);
  return CONSTRUCTS.filter((c) => c.re.test(text)).map((c) => c.words);
}
