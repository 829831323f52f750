/**
 * Whether a person stands behind a note. A note an agent wrote (through the MCP `save` tool, or
 * `recall add` run from an agent's shell) is the agent's word: an agent that read a hostile file can
 * be made to write anything, so its notes are *unreviewed* until a person accepts them. Unreviewed
 * notes are never HIGH confidence, never SessionStart's probe, and are injected with a label saying
 * who wrote them (sinks/render/markdown.ts); the MCP tools may retire only these.
 *
 * Decided from the note's frontmatter, in the reference's vocabulary (the `status` values of its
 * learnings lifecycle, `proposed` → `approved` / `rejected`, and its `provenance` block):
 *
 * | frontmatter                                                        | review     |
 * |--------------------------------------------------------------------|------------|
 * | `status: approved`                                                 | accepted   |
 * | `status: proposed`                                                 | unreviewed |
 * | `provenance.source_tool: recall mcp`                               | unreviewed |
 * | `provenance.source_tool: recall add` with a `harness` or session   | unreviewed |
 * | anything else (a person's `recall add`, a hand-written note, …)    | a person's |
 *
 * A person's `recall add` in a terminal records `source_tool: recall add` and nothing else: the
 * writer records a harness and session only when the environment says a harness runs it
 * (pipeline/learnings `provenanceOf`). Notes written before this rule keep their provenance, so an
 * old MCP-saved note is unreviewed as well.
 */
import { str } from './fields.js';

/** The `status` an agent's new note is written with: awaiting a person's review (the reference's word). */
export const STATUS_PROPOSED = 'proposed';
/** The `status` a person's acceptance writes. */
export const STATUS_APPROVED = 'approved';

/** The writers whose notes are the agent's word: the MCP server's tools. */
const AGENT_TOOLS: ReadonlySet<string> = new Set(['recall mcp']);
/** Writers that an agent may run from its shell: the agent's only when the provenance names a harness or session. */
const SHELL_TOOLS: ReadonlySet<string> = new Set(['recall add']);

/** Who wrote a note, as its provenance block says. */
export interface NoteAuthor {
  /** `provenance.source_tool` ('' when the note has none). */
  tool: string;
  harness: string;
  sessionId: string;
}

/** A note awaiting a person's review: the agent that wrote it, as far as its provenance says. */
export interface UnreviewedMark extends NoteAuthor {
  state: 'unreviewed';
}

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The provenance block's writer, harness and session (empty strings when absent). */
export function noteAuthor(fm: Record<string, unknown>): NoteAuthor {
  const p = record(fm['provenance']);
  return { tool: str(p['source_tool']).trim(), harness: str(p['harness']).trim(), sessionId: str(p['session_id']).trim() };
}

/** Whether a writer with this provenance is an agent rather than a person. */
export function isAgentAuthor(a: Pick<NoteAuthor, 'tool' | 'harness' | 'sessionId'>): boolean {
  const tool = a.tool.toLowerCase();
  return AGENT_TOOLS.has(tool) || (SHELL_TOOLS.has(tool) && (a.harness !== '' || a.sessionId !== ''));
}

/** The unreviewed mark of a note's frontmatter, or null when a person wrote or accepted it. */
export function unreviewedMark(fm: Record<string, unknown>): UnreviewedMark | null {
  const status = str(fm['status']).trim().toLowerCase();
  if (status === STATUS_APPROVED) return null;
  const author = noteAuthor(fm);
  if (status !== STATUS_PROPOSED && !isAgentAuthor(author)) return null;
  return { state: 'unreviewed', ...author };
}

/** Characters of a session id shown in a label: a UUID's first group, enough to tell sessions apart (as a short commit hash). */
const SESSION_SHOWN = 8;

/** A session id as a label shows it: its first characters, only letters, digits and `._:-`. */
export function shortSession(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._:-]/g, '');
  return clean.length > SESSION_SHOWN ? `${clean.slice(0, SESSION_SHOWN)}…` : clean;
}

/** `written by the agent in session 1a2b3c4d (claude), not reviewed`: how an unreviewed note is labelled wherever it is shown. */
export function unreviewedLabel(m: Pick<UnreviewedMark, 'harness' | 'sessionId'>): string {
  const session = shortSession(m.sessionId);
  const harness = m.harness.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40);
  const where = session ? ` in session ${session}` : '';
  return `written by the agent${where}${harness ? ` (${harness})` : ''}, not reviewed`;
}
