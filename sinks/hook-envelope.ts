/**
 * Hook answers as each harness expects them, always exactly one JSON object:
 * - Claude Code and Codex: {"hookSpecificOutput": {"hookEventName": E, "additionalContext": S}};
 * - Copilot (REFLECT_HARNESS=copilot): {"additionalContext": S}.
 */
export type HookEvent = 'SessionStart' | 'UserPromptSubmit' | 'SubagentStart';
export type Harness = 'claude' | 'codex' | 'copilot';

export function harnessOf(env: Readonly<Record<string, string | undefined>>): Harness {
  const h = (env['REFLECT_HARNESS'] ?? '').trim().toLowerCase();
  return h === 'copilot' ? 'copilot' : h === 'codex' ? 'codex' : 'claude';
}

export function toHookEnvelope(harness: Harness, event: HookEvent, context: string): string {
  const body = harness === 'copilot' ? { additionalContext: context } : { hookSpecificOutput: { hookEventName: event, additionalContext: context } };
  return `${JSON.stringify(body)}\n`;
}
