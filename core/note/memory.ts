/**
 * What a Claude Code memory file says beyond an ordinary note: its kind (user, feedback, project,
 * reference) and the older memories it says it replaces. Claude Code writes a new memory beside the
 * old one and says so in words ("[[CI runs on Jenkins]] is obsolete"), so both stay in the folder.
 */
import { str } from './fields.js';

/** Claude Code's memory kinds. */
const MEMORY_TYPES = new Set(['user', 'feedback', 'project', 'reference']);

/** Words that say a linked note no longer holds ("[[CI runs on Jenkins]] is obsolete", "moved from [[x]]"). */
const REPLACED_CUE =
  /\b(?:obsolete|outdated|out of date|no longer|not any ?more|superseded|supersedes|replaced|replaces|replacing|instead of|deprecated|retired|is gone|are gone|was removed|moved (?:from|off|away)|migrated (?:from|off|away)|switched (?:from|off|away))\b/i;

/** Most replaced links read from one note (a note naming hundreds is not replacing them). */
const MAX_REPLACED_LINKS = 3;

/**
 * The `[[name]]` links of a note's text that sit in a clause saying the linked note no longer holds
 * (REPLACED_CUE in the same clause: text between . ; ! ? or line breaks). A link that merely points
 * somewhere ("see [[bench-host]]") replaces nothing. At most MAX_REPLACED_LINKS, and none past that.
 */
export function replacedLinks(body: string): string[] {
  const out = new Set<string>();
  for (const clause of body.split(/[.;!?\n]+(?:\s|$)/)) {
    if (!clause.includes('[[') || !REPLACED_CUE.test(clause.replace(/\[\[[^\]]*\]\]/g, ' '))) continue;
    for (const m of clause.matchAll(/\[\[([^\]|#\n]{1,200})(?:[|#][^\]\n]*)?\]\]/g)) out.add(m[1]!.trim());
  }
  return out.size > MAX_REPLACED_LINKS ? [] : [...out].filter(Boolean);
}

/** A Claude Code memory's kind: `metadata.type` (2.1.300+), else the older top-level `type:`; '' when neither is one. */
function memoryTypeOf(fm: Record<string, unknown>): string {
  const meta = fm['metadata'];
  const nested = meta && typeof meta === 'object' && !Array.isArray(meta) ? str((meta as Record<string, unknown>)['type']) : '';
  const t = (nested || str(fm['type'])).toLowerCase();
  return MEMORY_TYPES.has(t) ? t : '';
}

/**
 * A Claude Code memory's `name` as words ("commit-message-format" → "commit message format"): the
 * subject its writer gave it, searched and weighed like a title. '' for a note that is no memory
 * (one with an `id`, or no `name`) and for one with a `title` of its own, which names its subject
 * already (a file name copied into `name:` is no subject).
 */
export function memoryNameWords(fm: Record<string, unknown>): string {
  const name = str(fm['name']);
  if (!name || str(fm['id']) || str(fm['title'])) return '';
  return name.replace(/[-_]+/g, ' ').trim();
}

/** The memory kind and replaced links of a Claude Code memory file (a note with a `name` and no `id`); {} for others. */
/** Whether a note's frontmatter is a Claude Code memory's: a `name` and no reflect `id`. */
export function isMemory(fm: Record<string, unknown>): boolean {
  return Boolean(str(fm['name'])) && !str(fm['id']);
}

export function memoryFields(fm: Record<string, unknown>, body: string, name: string): { memoryType?: string; replaces?: string[] } {
  if (!name || !isMemory(fm)) return {};
  const memoryType = memoryTypeOf(fm);
  const replaces = replacedLinks(body).filter((n) => n !== name);
  return { ...(memoryType ? { memoryType } : {}), ...(replaces.length ? { replaces } : {}) };
}
