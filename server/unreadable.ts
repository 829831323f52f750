/**
 * Which paths of a request do not answer (server/project-probe.ts), asked before the request takes
 * a place to run: a call waiting on a hung mount must not hold a place others need.
 */
import path from 'node:path';
import { callPaths } from '../hooks/answer.js';
import type { HookRunIo } from '../hooks/runtime.js';
import { RUN_CUT_BEFORE_MS, type HookCall } from '../io/hook-input.js';
import type { ProbeTask, ProbeVerdict, ProjectProbe } from './project-probe.js';
import { callerSettings } from './caller-request.js';
import type { CliRequest } from '../sources/recall-server/index.js';

export type { ProjectProbe };
/** The paths of a hook call that do not answer, each with the line that says so. */
export type Unreadable = HookRunIo['unreadable'];

/** Longest a call waits for its paths to answer (a healthy probe takes about a millisecond). */
export const PROBE_MAX_MS = 2000;

/** Whether a task's paths answer, waiting at most half of what is left before the run is cut, and PROBE_MAX_MS. */
function probeFiles(probe: ProjectProbe, task: ProbeTask, deadlineMs: number): Promise<ProbeVerdict> {
  const now = Date.now();
  const until = now + Math.min(PROBE_MAX_MS, Math.max(0, (deadlineMs - RUN_CUT_BEFORE_MS - now) / 2));
  return probe.check(task, until);
}

/**
 * The probe of a project folder with the settings of a call: its KBs and memory folders follow from
 * both, so calls share a probe only when both are the same.
 */
function projectTask(project: string, env: Readonly<Record<string, string | undefined>>): ProbeTask {
  const settings = JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { key: `${project}\0${settings}`, label: project, dirs: [project], files: [], sources: { env, cwd: project } };
}

/**
 * Which of a hook call's paths do not answer, each with the line that says so: its project folder
 * and its transcript, probed side by side (one per key: a stuck transcript never holds up the
 * project's other sessions, nor the reverse).
 */
export async function unreadablePaths(probe: ProjectProbe | null | undefined, call: HookCall): Promise<Unreadable> {
  if (!probe) return {};
  const { project, transcript } = callPaths(call);
  const ok = { ok: true } as const;
  const [dir, file] = await Promise.all([
    probeFiles(probe, projectTask(project, call.env), call.deadlineMs),
    transcript ? probeFiles(probe, { key: transcript, label: transcript, dirs: [], files: [transcript] }, call.deadlineMs) : ok,
  ]);
  return { ...(dir.ok ? {} : { project: dir.why }), ...(file.ok ? {} : { transcript: file.why }) };
}

/** Why a plain recall's folder is not read here (it does not answer), or null. A recall has no deadline: it waits PROBE_MAX_MS. */
export async function unreadableCwd(probe: ProjectProbe | null | undefined, req: CliRequest): Promise<string | null> {
  if (!probe) return null;
  const v = await probe.check(projectTask(path.resolve(req.cwd), callerSettings(req).env), Date.now() + PROBE_MAX_MS);
  return v.ok ? null : v.why;
}
