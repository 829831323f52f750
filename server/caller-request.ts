/**
 * What the recall server reads from a request before running it: the environment as the caller
 * meant it (relative paths against the caller's folder), a hook's deadline, and the answer a hook
 * gets when the server cannot run it in time.
 */
import { withConfigFile } from '../pipeline/config/index.js';
import { absolutePathSettings } from '../core/path-settings.js';
import { HOOKS } from '../hooks/registry.js';
import { hookDeadlineMs, parseHookInput } from '../hooks/runtime.js';
import { hookRow, isHookName } from '../hooks/hook-table.js';
import { harnessOf, toHookEnvelope } from '../sinks/hook-envelope.js';
import { leaveBreadcrumb } from '../sinks/logs/index.js';
import { stateDirOf, type CliRequest, type HookRequest, type ServerAnswer } from '../sources/recall-server/index.js';

/**
 * The request's environment with recall.toml's values under it and every relative path setting
 * made absolute against the caller's folder (this process's own working directory means nothing to
 * the caller). The client already did so for its environment; a path from recall.toml is only seen
 * here.
 */
export function callerPaths(req: HookRequest | CliRequest): Record<string, string | undefined> {
  return callerSettings(req).env;
}

/** The caller's environment (callerPaths) and the config file's problems (a hook leaves them as breadcrumbs). */
export interface CallerSettings {
  env: Record<string, string | undefined>;
  warnings: string[];
}

/** callerPaths with the config file's problems: a request reads recall.toml once, through this. */
export function callerSettings(req: HookRequest | CliRequest): CallerSettings {
  const file = withConfigFile(absolutePathSettings(req.env, req.cwd));
  return { env: absolutePathSettings(file.env, req.cwd), warnings: file.warnings };
}

/**
 * A hook's deadline as the server holds it: the one its client sent, else (an older client) the one
 * its settings give, counted from the client's start. recall.toml may set a shorter one.
 */
export function hookDeadlineOf(req: HookRequest, settings: CallerSettings = callerSettings(req)): number {
  if (!isHookName(req.name)) return Infinity;
  const own = hookDeadlineMs(HOOKS[req.name], settings.env, req.startedMs, settings);
  return typeof req.deadlineMs === 'number' && Number.isFinite(req.deadlineMs) ? Math.min(req.deadlineMs, own) : own;
}

/**
 * What a hook gets when the server cannot run it before its deadline: "nothing to add" in its
 * harness's shape, and the reason in the hook's log and breadcrumb (last-event.json), as every
 * degradation is recorded.
 */
export function tooLateHook(req: HookRequest, why: string, settings: CallerSettings = callerSettings(req)): ServerAnswer {
  const input = parseHookInput(req.stdinText);
  const env = settings.env;
  leaveBreadcrumb(stateDirOf(env), req.name, 'server-busy', `${why}; answered with no context before the deadline`);
  return { ok: true, envelope: isHookName(req.name) ? toHookEnvelope(harnessOf(env, input), hookRow(req.name).event, '') : '{}\n' };
}
