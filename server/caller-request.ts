/**
 * What the recall server reads from a request before running it: a plain recall's environment as
 * the caller meant it (relative paths against the caller's folder, recall.toml under it), and the
 * answer a hook gets when the server cannot run it in time. A hook call arrives with its settings
 * and deadline already worked out by its client (client/hook-call.ts): they are used as they are.
 */
import { withConfigFile } from '../pipeline/config/index.js';
import { absolutePathSettings } from '../core/path-settings.js';
import { parseHookInput } from '../hooks/runtime.js';
import { hookRow, isHookName } from '../hooks/hook-table.js';
import { emptyEnvelope, harnessOf } from '../sinks/hook-envelope.js';
import { leaveBreadcrumb } from '../sinks/logs/index.js';
import type { HookCall } from '../io/hook-input.js';
import { stateDirOf, type CliRequest, type ServerAnswer } from '../sources/recall-server/index.js';

/** A plain recall's environment with recall.toml's values under it, and the config file's problems. */
export interface CallerSettings {
  env: Record<string, string | undefined>;
  warnings: string[];
}

/**
 * The request's environment with recall.toml's values under it and every relative path setting
 * made absolute against the caller's folder (this process's own working directory means nothing to
 * the caller). The client already did so for its environment; a path from recall.toml is only seen
 * here.
 */
export function callerSettings(req: CliRequest): CallerSettings {
  const file = withConfigFile(absolutePathSettings(req.env, req.cwd));
  return { env: absolutePathSettings(file.env, req.cwd), warnings: file.warnings };
}

/**
 * What a hook gets when the server cannot run it before its deadline: "nothing to add" in its
 * harness's shape, and the reason in the hook's log and breadcrumb (last-event.json), as every
 * degradation is recorded.
 */
export function tooLateHook(call: HookCall, why: string): ServerAnswer {
  leaveBreadcrumb(stateDirOf(call.env), call.name, 'server-busy', `${why}; answered with no context before the deadline`);
  const event = isHookName(call.name) ? hookRow(call.name).event : undefined;
  return { ok: true, envelope: emptyEnvelope(harnessOf(call.env, parseHookInput(call.stdinText)), event) };
}

/** Whether a request's call has the shape a client of this protocol sends (else its client runs it itself). */
export function wellFormedCall(call: unknown): call is HookCall {
  const c = call as Partial<HookCall> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.name === 'string' &&
    typeof c.stdinText === 'string' &&
    typeof c.cwd === 'string' &&
    typeof c.env === 'object' &&
    c.env !== null &&
    Array.isArray(c.warnings) &&
    Number.isFinite(c.startedMs) &&
    Number.isFinite(c.deadlineMs)
  );
}
