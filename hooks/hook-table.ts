/**
 * The one list of recall's hooks. Everything that names a hook derives from this table: the
 * handlers (registry.ts), the harness wiring and hooks/hooks.json (hooks/install/harness-config.ts), the entry
 * scripts, the fallback envelope, `recall hook <name>` and the commands that recognise a recall hook
 * in someone's settings. It imports nothing, so the hook entries and the CLI's fast path load it cheaply.
 *
 * Columns:
 * - name: file-system friendly name (entry script, logs, breadcrumbs, `recall hook <name>`);
 * - event: the Claude Code and Codex event (PascalCase), also the hookEventName of their envelope;
 * - copilotEvent: the Copilot CLI event (camelCase). The prompt hook runs on userPromptTransformed
 *   because Copilot ignores what userPromptSubmitted returns;
 * - budgetChars: most characters of learnings the hook injects (the subagent hook's is the default of
 *   REFLECT_SUBAGENT_RECALL_MAX_CHARS, which a user may change);
 * - timeoutSec: the timeout the harness is told (seconds); the hook's own deadline stays well inside;
 * - timeoutEnv, defaultTimeoutSec: the variable and default (seconds) of the hook's own deadline;
 * - fixedContextEnv: a variable whose value, when set, is the user's own context, injected as given;
 * - entry: the source of the hook's entry script (`node dist/hooks/<name>.js`);
 * - matcher, copilotMatcher: the tool names the hook is wired for, where the harness filters by
 *   tool (a regex the tool name must match whole).
 */

/**
 * Own deadline (seconds) of the session-start and prompt hooks. The harnesses are told 30 s: a hook
 * that answered at its own 30 s deadline was killed before its answer arrived, so the deadline sits
 * well inside, leaving room for process start and exit.
 */
export const HOOK_DEADLINE_SEC = 20;

/**
 * Characters of learnings a session-start, prompt or subagent hook injects: three whole learnings of
 * a typical KB (the reference's value), small next to the context they land in.
 */
export const HOOK_BUDGET_CHARS = 1500;

/** Characters the action hook may inject: one or two learnings, never a wall of text before a command. */
export const ACTION_BUDGET_CHARS = 1200;

export const HOOK_TABLE = [
  {
    name: 'session-start',
    event: 'SessionStart',
    copilotEvent: 'sessionStart',
    budgetChars: HOOK_BUDGET_CHARS,
    timeoutSec: 30,
    timeoutEnv: 'REFLECT_RECALL_TIMEOUT',
    defaultTimeoutSec: HOOK_DEADLINE_SEC,
    entry: 'hooks/session-start.ts',
  },
  {
    name: 'user-prompt-submit',
    event: 'UserPromptSubmit',
    copilotEvent: 'userPromptTransformed',
    budgetChars: HOOK_BUDGET_CHARS,
    timeoutSec: 30,
    timeoutEnv: 'REFLECT_RECALL_TIMEOUT',
    defaultTimeoutSec: HOOK_DEADLINE_SEC,
    entry: 'hooks/user-prompt-submit.ts',
  },
  {
    name: 'subagent-start',
    event: 'SubagentStart',
    copilotEvent: 'subagentStart',
    budgetChars: HOOK_BUDGET_CHARS,
    timeoutSec: 10,
    timeoutEnv: 'REFLECT_SUBAGENT_RECALL_TIMEOUT',
    defaultTimeoutSec: 5,
    fixedContextEnv: 'REFLECT_SUBAGENT_CONTEXT',
    entry: 'hooks/subagent-start.ts',
  },
  {
    // Before every tool call: the harness waits for it, so its own deadline is short and the
    // harness is told a few seconds more (a hook the harness kills answers nothing; Copilot denies
    // the call when a preToolUse hook fails, so the hook must answer, empty, well before that).
    name: 'pre-tool-use',
    event: 'PreToolUse',
    copilotEvent: 'preToolUse',
    budgetChars: ACTION_BUDGET_CHARS,
    timeoutSec: 10,
    timeoutEnv: 'RECALL_PRE_TOOL_TIMEOUT',
    defaultTimeoutSec: 2,
    entry: 'hooks/pre-tool-use.ts',
    // Tools whose call can be an action a learning is about (Codex names its shell `Bash` and its
    // patches `apply_patch`; Copilot's own tools are lower-case). Read-only tools (Read, Grep, Glob,
    // view, web fetches, Task) do not start a process at all.
    matcher: 'Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch',
    copilotMatcher: 'bash|powershell|edit|create|apply_patch',
  },
] as const;

export type HookRow = (typeof HOOK_TABLE)[number];
export type HookName = HookRow['name'];
export type HookEvent = HookRow['event'];

export const HOOK_NAMES: readonly HookName[] = HOOK_TABLE.map((h) => h.name);

export function isHookName(name: unknown): name is HookName {
  return typeof name === 'string' && (HOOK_NAMES as readonly string[]).includes(name);
}

/** The table row of hook `name`. */
export function hookRow<N extends HookName>(name: N): Extract<HookRow, { name: N }> {
  return HOOK_TABLE.find((h) => h.name === name) as Extract<HookRow, { name: N }>;
}
