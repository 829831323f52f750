/**
 * Hook answers as each harness expects them, always exactly one JSON object:
 * - Claude Code and Codex: {"hookSpecificOutput": {"hookEventName": E, "additionalContext": S}};
 * - Copilot (REFLECT_HARNESS=copilot): {"additionalContext": S}.
 */
import { wellFormed } from './safe-text.js';

export type HookEvent = 'SessionStart' | 'UserPromptSubmit' | 'SubagentStart';
export type Harness = 'claude' | 'codex' | 'copilot';

export function harnessOf(env: Readonly<Record<string, string | undefined>>): Harness {
  const h = (env['REFLECT_HARNESS'] ?? '').trim().toLowerCase();
  return h === 'copilot' ? 'copilot' : h === 'codex' ? 'codex' : 'claude';
}

export function toHookEnvelope(harness: Harness, event: HookEvent, context: string): string {
  // Lone surrogates become U+FFFD: Codex and other strict parsers reject a `\ud800` escape.
  const text = wellFormed(context);
  const body = harness === 'copilot' ? { additionalContext: text } : { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
  return `${JSON.stringify(body)}\n`;
}
