/** Test factories for notes and candidates. */
import { parseNote, type Note } from '../../core/note/note.js';

let seq = 0;

/** A parsed note from frontmatter fields and a body (goes through the real parser). */
export function note(fields: Record<string, unknown> = {}, body = 'Body text.', rel?: string): Note {
  seq += 1;
  const fm = Object.entries({ id: `n${seq}`, title: `Note ${seq}`, ...fields })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return parseNote(`---\n${fm}\n---\n${body}\n`, rel ?? `documents/n${seq}.md`, 'documents');
}
