/**
 * The words that switch a flag on, in an environment variable or a note's frontmatter: one list,
 * so `RECALL_X=yes` and `quarantine: yes` mean the same everywhere.
 */
export const TRUTHY_WORDS: ReadonlySet<string> = new Set(['1', 'true', 'yes', 'on']);

/**
 * The words that switch off a flag that is on by default: `0` (the reference's convention for its
 * RECALL_* toggles) and the words a person writes for "off" (`RECALL_PRE_TOOL_USE=false`).
 */
export const FALSY_WORDS: ReadonlySet<string> = new Set(['0', 'false', 'no', 'off']);

/** Whether a text value is one of the falsy words (case and surrounding spaces ignored). */
export function isFalsyWord(value: string | undefined): boolean {
  return value !== undefined && FALSY_WORDS.has(value.trim().toLowerCase());
}

/** Whether a text value is one of the truthy words (case and surrounding spaces ignored). */
export function isTruthyWord(value: string | undefined): boolean {
  return value !== undefined && TRUTHY_WORDS.has(value.trim().toLowerCase());
}

/** Whether an environment variable is set to a truthy word. */
export function envFlag(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  return isTruthyWord(env[name]);
}
