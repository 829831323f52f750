/**
 * The text of a note that models read and that search matches: the title, key insight, tags,
 * structured fields and body, without the YAML header's keys.
 */
import { str } from './fields.js';
import { memoryNameWords } from './memory.js';
import type { Note } from './note.js';

/** Characters of a note shown to a model (its first 2000). */
export const MODEL_TEXT_CHARS = 2000;

/**
 * What the cross-encoder and the embedder read for a note: title, key insight, tags and body —
 * not the raw YAML header, whose keys (id, confidence, provenance, …) are the same in every note and
 * would spend the model's token budget on boilerplate and make all notes look alike.
 */
export function modelText(note: Pick<Note, 'title' | 'keyInsight' | 'tags' | 'body'>): string {
  const head = [note.title, note.keyInsight, note.tags.length ? note.tags.join(', ') : ''].filter(Boolean).join('\n');
  return `${head}\n\n${note.body}`.trim().slice(0, MODEL_TEXT_CHARS);
}

/** Structured frontmatter fields that are searched along with the text (symptoms, fixes, …). */
export const EXTRA_FIELDS = ['symptoms', 'problem', 'root_cause', 'fix', 'rule', 'category', 'entities'] as const;

function flattenText(value: unknown): string {
  if (Array.isArray(value)) return value.map(flattenText).join(' ');
  if (value && typeof value === 'object')
    return Object.values(value as Record<string, unknown>)
      .map(flattenText)
      .join(' ');
  return str(value);
}

/**
 * The structured fields' text, flattened (what the index's `extra` column holds), and a Claude Code
 * memory's name in words: its subject ("commit-message-format"), which its description may not repeat.
 */
export function extraFieldsText(note: Pick<Note, 'frontmatter'>): string {
  return [memoryNameWords(note.frontmatter), ...EXTRA_FIELDS.map((f) => flattenText(note.frontmatter[f]))].join(' ').trim();
}

/**
 * The text a note is searched by: title, key insight, tags, structured fields and body — the
 * columns of the full-text index, without the YAML header's keys.
 */
export function searchableText(note: Pick<Note, 'title' | 'keyInsight' | 'tags' | 'body' | 'frontmatter'>): string {
  return [note.title, note.keyInsight, note.tags.join(' '), extraFieldsText(note), note.body].join('\n');
}
