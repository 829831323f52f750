/**
 * Hook answers as each harness expects them, always exactly one JSON object:
 * - Claude Code and Codex: {"hookSpecificOutput": {"hookEventName": E, "additionalContext": S}};
 * - Copilot (REFLECT_HARNESS=copilot): {"additionalContext": S}; for the prompt hook, which Copilot
 *   runs as userPromptTransformed, {"modifiedTransformedPrompt": <its prompt> + S} (or {} for no change).
 * Whatever the caller's budgets, the context is cut to the harness's inline limit (HARNESS_CONTEXT_CAP).
 */
import { REFERENCE_CLOSE, wellFormed } from './safe-text.js';

export type Harness = 'claude' | 'codex' | 'copilot';

/**
 * The harness running this hook: REFLECT_HARNESS when set; else Codex when the call carries Codex's
 * marks (its `turn_id` payload field, or the PLUGIN_ROOT variable it gives plugin hooks besides
 * CLAUDE_PLUGIN_ROOT), so one plugin hooks.json serves both; else Claude Code.
 */
export function harnessOf(env: Readonly<Record<string, string | undefined>>, input: Record<string, unknown> = {}): Harness {
  const h = (env['REFLECT_HARNESS'] ?? '').trim().toLowerCase();
  if (h === 'copilot' || h === 'codex' || h === 'claude') return h;
  return typeof input['turn_id'] === 'string' || env['PLUGIN_ROOT'] ? 'codex' : 'claude';
}

/**
 * Characters of context each harness takes inline. Claude Code replaces a hook output over 10,000
 * characters by a file path and a short preview; Codex does the same past about 2,500 tokens (7,000
 * characters of code-heavy text can reach that); Copilot states no limit, so it gets Claude's.
 * Kept a little under each limit so the envelope's own text never tips it over.
 */
export const HARNESS_CONTEXT_CAP: Readonly<Record<Harness, number>> = { claude: 9_500, codex: 7_000, copilot: 9_500 };

/**
 * Cut `text` to at most `cap` characters, at the start of a learning (`\n- **[`) or else a line
 * boundary, and say that it was cut. Text within the cap is returned unchanged. A delimited block of
 * recalled notes keeps its closing tag: the cut happens inside the block, so what follows the cut is
 * never read as outside it.
 */
export function fitContext(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const closing = text.endsWith(REFERENCE_CLOSE) ? `\n${REFERENCE_CLOSE}` : '';
  const note = '\n… (more learnings cut to fit the harness limit on hook output)';
  const room = Math.max(0, cap - note.length - closing.length);
  const head = text.slice(0, room);
  const learning = head.lastIndexOf('\n- **[');
  const line = head.lastIndexOf('\n');
  const at = learning > room / 4 ? learning : line > room / 4 ? line : room;
  return `${head.slice(0, at).trimEnd()}${note}${closing}`;
}

/**
 * "Nothing to add": the envelope of an empty answer to hook event `event` in the shape of `harness`
 * (a Harness, or REFLECT_HARNESS as set), the same bytes as toHookEnvelope(harness, event, ''); an
 * empty object, valid in every harness, when `event` is unknown (not a hook). Copilot's prompt hook
 * leaves the prompt as it is with `{}`; its other hooks read a top-level field.
 *
 * Self-contained on purpose (it uses nothing outside its own body): the scripts that must answer
 * when nothing else of recall can load (scripts/launch.mjs, the generated dist/hooks/<name>.js, the
 * stable launcher) carry its source text, written into them by scripts/bundle.mjs and
 * hooks/install/stable-launcher.ts, so there is one empty envelope, not one per script.
 */
export function emptyEnvelope(harness: string | undefined, event: string | undefined): string {
  const shape = String(harness ?? '')
    .trim()
    .toLowerCase();
  if (shape === 'copilot') return event === 'UserPromptSubmit' || !event ? '{}\n' : '{"additionalContext":""}\n';
  if (!event) return '{}\n';
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: '' } }) + '\n';
}

/**
 * The envelope of a hook answer. `event` is the Claude Code / Codex event name of the hook (the hook
 * table in hooks/ owns the names); Copilot runs the UserPromptSubmit hook as userPromptTransformed,
 * whose answer rewrites the prompt instead of adding context. `systemMessage` (Claude Code only) is a
 * line for the person: why recall cannot work and how to fix it.
 */
export function toHookEnvelope(
  harness: Harness,
  event: string,
  context: string,
  input: Record<string, unknown> = {},
  systemMessage: string | null = null,
): string {
  // Lone surrogates (a note's own, or half a pair the cut left) become U+FFFD: Codex and other
  // strict parsers reject a `\ud800` escape.
  const text = wellFormed(fitContext(context, HARNESS_CONTEXT_CAP[harness]));
  if (harness === 'copilot' && event === 'UserPromptSubmit') {
    // userPromptTransformed: the learnings go after the model-facing prompt Copilot handed us.
    const base = input['transformedPrompt'];
    return typeof base === 'string' && text.trim()
      ? `${JSON.stringify({ modifiedTransformedPrompt: wellFormed(`${base}\n\n${text}`) })}\n`
      : '{}\n';
  }
  // `systemMessage` is shown to the person, not the model: Claude Code's documented field. Codex and
  // Copilot document no such field (and Codex parses strictly), so they never get it.
  const notice = harness === 'claude' && systemMessage ? { systemMessage: wellFormed(systemMessage.slice(0, 1000)) } : {};
  const body =
    harness === 'copilot'
      ? { additionalContext: text }
      : { hookSpecificOutput: { hookEventName: event, additionalContext: text }, ...notice };
  return `${JSON.stringify(body)}\n`;
}
