/**
 * The action matcher over a few notes, for the specs of operators/action: a trigger index of the
 * given files and the ids a tool call reaches in it. Every stem counts as rare (info 1): the
 * matcher's own rules, without the English word counts.
 */
import { parseNote } from '../../core/note/index.js';
import { buildTriggerIndex, matchAction, noteTriggers, readToolCall, type TriggerIndex } from '../../operators/action/index.js';

export const info = (): number => 1;

/** A trigger index of these note files (path → text). */
export function kb(files: Record<string, string>): TriggerIndex {
  const notes = Object.entries(files).map(([rel, text]) => parseNote(text, rel, 'documents'));
  return buildTriggerIndex(notes.map((n) => noteTriggers(n, n.displayId)));
}

/** A tool call as PreToolUse sends it. */
export const call = (tool_name: string, tool_input: Record<string, unknown>) => readToolCall({ tool_name, tool_input })!;

/** The ids of the notes the call reaches, best first. */
export const ids = (idx: TriggerIndex, tool: string, input: Record<string, unknown>, cwd = '/home/dev/shop'): string[] =>
  matchAction(idx, call(tool, input), cwd, { info }).map((m) => m.id);

/** A Claude Code memory file as Claude Code writes it: `name`, `description`, `metadata.type`, then its body. */
export const memory = (name: string, description: string, body: string, type = 'feedback'): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`;
