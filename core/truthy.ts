/**
 * The words that switch a flag on, in an environment variable or a note's frontmatter: one list,
 * so `RECALL_X=yes` and `quarantine: yes` mean the same everywhere.
 */
export const TRUTHY_WORDS: ReadonlySet<string> = new Set(['1', 'true', 'yes', 'on']);

/** Whether a text value is one of the truthy words (case and surrounding spaces ignored). */
export function isTruthyWord(value: string | undefined): boolean {
  return value !== undefined && TRUTHY_WORDS.has(value.trim().toLowerCase());
}

/** Whether an environment variable is set to a truthy word. */
export function envFlag(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  return isTruthyWord(env[name]);
}
