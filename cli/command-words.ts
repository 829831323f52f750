/**
 * The sub-commands of `recall`: a first word that names one is never taken as a query (`recall --
 * WORD` searches it). Shared by the CLI's parser and the recall server's thin client, which sends
 * only a plain `recall QUERY` to the server; node-free and import-free so the client can bundle it.
 */
export const COMMAND_WORDS = [
  'index',
  'models',
  'daemon',
  'hook',
  'hooks',
  'stages',
  'trace',
  'explain',
  'replay',
  'mcp',
  'status',
  'doctor',
  'add',
  'supersede',
  'forget',
  'review',
  'accept',
  'reject',
  'show',
  'list',
  'help',
  'version',
  'completion',
  'team',
  'view',
] as const;

/** Flags that make any command line something other than a plain recall (help, version, completion). */
export const NOT_A_QUERY_FLAGS = ['--help', '-h', '--version', '-V', '--get-yargs-completions'] as const;

/**
 * Edits (insertions, deletions, substitutions, swaps of two neighbours) between two words: the
 * optimal string alignment distance, so `stauts` is one edit from `status`.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The command a one-word query was probably meant to be (`recall stauts` → `status`), or null. A
 * word counts as a typo of a command when it is within 2 edits of it (1 for words of 4 letters or
 * fewer, where 2 edits turn most short words into one another) and is not a command itself. The
 * caller asks only when the word found no note: a word the KB knows is a search, typo or not.
 */
export function commandLike(word: string): string | null {
  const w = word.toLowerCase();
  if (!/^[a-z-]{2,}$/.test(w) || (COMMAND_WORDS as readonly string[]).includes(w)) return null;
  let best: { word: string; d: number } | null = null;
  for (const c of COMMAND_WORDS) {
    const d = editDistance(w, c);
    const max = Math.min(w.length, c.length) <= 4 ? 1 : 2;
    if (d <= max && (best === null || d < best.d)) best = { word: c, d };
  }
  return best?.word ?? null;
}
