/**
 * What every hook shares: tolerant stdin parsing, presence-first field lookup, env overrides that
 * fall back on malformed values (with a breadcrumb), the call's deadline, and the never-fail contract:
 * whatever happens the hook prints exactly one valid envelope and exits 0.
 */
import os from 'node:os';
import { asyncScheduler, defer, lastValueFrom, take, throwError, timeout, type Observable, type SchedulerLike } from 'rxjs';
import { loadConfig, type RecallConfig } from '../pipeline/config/index.js';
import type { RunIo } from '../pipeline/run.js';
import { errorMessage } from '../core/errors.js';
import { harnessOf, toHookEnvelope, type Harness } from '../sinks/hook-envelope.js';
import type { HookEvent, HookName } from './hook-table.js';
import { leaveBreadcrumb, logHookLine, claimNotice } from '../sinks/logs/index.js';
import { asReferenceBlock } from '../sinks/safe-text.js';
import { hookFailure } from '../pipeline/health/index.js';
import { MAX_STDIN_BYTES, RUN_CUT_BEFORE_MS, RUN_PLAN_BEFORE_MS, type HookCall } from '../io/hook-input.js';
import { StateDirError, checkStateDir } from '../io/private-fs.js';
import { resolveStateDir } from '../core/state-dir.js';
import { SettingsReader } from '../core/settings/index.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Hook input as an object, parsed once: empty, non-JSON, non-object or oversized stdin gives {} and
 * `problem` says why (the hook goes on with {}); null when stdin is the JSON object a harness sends.
 */
export function readHookInput(text: string): { input: Record<string, unknown>; problem: string | null } {
  if (!text.trim()) return { input: {}, problem: 'empty stdin (expected the harness hook JSON)' };
  if (text.length > MAX_STDIN_BYTES) return { input: {}, problem: `stdin larger than ${MAX_STDIN_BYTES} bytes; ignored` };
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v)
      ? { input: v as Record<string, unknown>, problem: null }
      : { input: {}, problem: 'stdin is JSON but not an object' };
  } catch (err) {
    return { input: {}, problem: `stdin is not JSON (${(err as Error).message.split('\n')[0]})` };
  }
}

/** Hook input as an object: empty, non-JSON, non-object or oversized stdin → {}. */
export const parseHookInput = (text: string): Record<string, unknown> => readHookInput(text).input;

/**
 * First of `keys` present in the input (a present falsy value wins, as in the reference), as a
 * trimmed string; numbers are stringified; other types count as absent. Absent → null.
 */
export function pick(input: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const k of keys) {
    if (!(k in input)) continue;
    const v = input[k];
    if (typeof v === 'string') return v.trim();
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return null;
  }
  return null;
}

export interface HookContext {
  env: Env;
  cwd: string;
  harness: Harness;
  stateDir: string;
  /** The settings of this call (environment over recall.toml over defaults), read once by runHook. */
  config: RecallConfig;
  /**
   * When the hook's work should be done (epoch ms): the call's deadline less RUN_PLAN_BEFORE_MS, the
   * time its answer needs to reach the harness. Recalls are planned against it.
   */
  deadlineMs: number;
  /** When the hook process started (epoch ms): what a hook's own time (hook_ms) counts from. */
  startedMs: number;
  /** The hooks' own numbers, read by the settings reader (core/settings); what it refused is recorded after the run. */
  overrides: SettingsReader;
  now: () => number;
  /** Effects the hook's recalls run with (the recall server's index opener; a test's model client). */
  recallIo: Pick<RunIo, 'openIndex' | 'models' | 'degraded'>;
  /** Why the payload's transcript is not read (it did not answer); its path is then gone from the input too. */
  unreadableTranscript?: string;
  /**
   * The process goes on after this call (the recall server): work the call starts that later calls
   * use (the tool-call hook's triggers of a KB) may go on past the call's deadline. Elsewhere the
   * process ends with the call, and such work stops at the deadline.
   */
  outlivesCall?: boolean;
  /**
   * Set by the SessionStart hook when recall cannot work (no KB, no notes): one line with the fix,
   * shown to the person (not the model) once per session.
   */
  notice?: string | null;
}

export interface HookSpec {
  /** File-system friendly name (logs, breadcrumbs), from the hook table. */
  name: HookName;
  event: HookEvent;
  /** Env variable whose value, when set, is the user's own fixed context (injected as given, not as recalled notes). */
  fixedContextEnv?: string;
  /** Env variable and default (seconds) of the hook's deadline. */
  timeoutEnv: string;
  defaultTimeoutSec: number;
  /**
   * The context to inject, as a lazy stream that emits once: runHook subscribes to it once and
   * unsubscribes at the deadline, which stops whatever it still runs (the recall, its arms, its
   * model calls). Bookkeeping happens inside it, after the hook's own selection, so a run cut by the
   * deadline records nothing.
   */
  run(input: Record<string, unknown>, ctx: HookContext): Observable<string>;
  /**
   * Work for the calls that come after this one (the tool-call hook's triggers: action-warm.ts),
   * started once this call has answered (cut at its deadline or failed too), and only in a process
   * that outlives it (the recall server).
   */
  afterAnswer?: (input: Record<string, unknown>, ctx: HookContext) => void;
}

/** What the place a hook runs in adds to its call. */
export interface HookRunIo {
  /** A degradation met before this run (the recall server could not answer), for the hook's log. */
  notice?: string;
  /** Effects for the hook's recalls (the recall server's index opener, a test's model client). */
  recallIo?: Pick<RunIo, 'openIndex' | 'models'>;
  now?: () => number;
  /** The process goes on after this call (HookContext.outlivesCall). */
  outlivesCall?: boolean;
  /** Where the deadline's timer runs (a test's virtual time); default: real time. */
  scheduler?: SchedulerLike;
  /**
   * Paths of the call the recall server found not answering (a hung mount), each with the line
   * that says so: the project folder (the hook then answers with nothing: every source of the call
   * reads the project), the payload's transcript (the hook runs without it).
   */
  unreadable?: { project?: string; transcript?: string };
}

/** The call's settings with models never fetched from a hook (a cold hub lookup blows any deadline). */
const offline = (env: Env): Env => ({
  ...env,
  HF_HUB_OFFLINE: env['HF_HUB_OFFLINE'] ?? '1',
  TRANSFORMERS_OFFLINE: env['TRANSFORMERS_OFFLINE'] ?? '1',
});

/**
 * Run a hook to its envelope, under the call's deadline: the run is cut RUN_CUT_BEFORE_MS before it,
 * which stops whatever it still does (and records nothing more). Never rejects: an error, a
 * malformed env value or a blown deadline gives an empty context (and a breadcrumb), never a crash
 * or a missing answer.
 */
export async function runHook(
  spec: HookSpec,
  call: HookCall,
  io: HookRunIo = {},
): Promise<{ envelope: string; context: string; error: string | null }> {
  const now = io.now ?? Date.now;
  let harness: Harness = 'claude';
  let stateDir = '';
  const { input, problem: stdinProblem } = readHookInput(call.stdinText);
  let later: (() => void) | null = null;
  try {
    harness = harnessOf(call.env, input);
    const env = offline(call.env);
    const config = loadConfig(env);
    // A state dir of another user is refused before anything is written there (failed() then
    // records why in this user's own default state dir).
    checkStateDir(config.stateDir);
    stateDir = config.stateDir;
    for (const w of [...call.warnings, ...config.warnings]) leaveBreadcrumb(stateDir, spec.name, 'config', w);
    if (stdinProblem) leaveBreadcrumb(stateDir, spec.name, 'stdin', stdinProblem);
    if (io.notice) logHookLine(stateDir, spec.name, io.notice);
    const usable = readablePart(spec, env, stateDir, io.unreadable ?? {}, input);
    if ('silent' in usable) return silentAnswer(spec, harness, input, stateDir, usable.silent);
    const overrides = new SettingsReader(env);
    const ctx: HookContext = {
      ...{ env, cwd: call.cwd, harness, stateDir, config, startedMs: call.startedMs, overrides, now },
      deadlineMs: call.deadlineMs - RUN_PLAN_BEFORE_MS,
      recallIo: { ...io.recallIo, ...usable.recallIo },
      ...(io.outlivesCall && { outlivesCall: true }),
      ...usable.ctx,
    };
    // Also when the run is cut or fails: the next calls need that work all the more on a loaded server.
    if (ctx.outlivesCall && spec.afterAnswer) later = () => spec.afterAnswer!(usable.input, ctx);
    const seconds = (call.deadlineMs - call.startedMs) / 1000;
    // The cut unsubscribes the run: nothing of it goes on (nor records anything) once the hook
    // answered with an empty context, and it comes before the client gives up waiting.
    const context = await lastValueFrom(
      defer(() => spec.run(usable.input, ctx)).pipe(
        take(1),
        timeout({
          first: Math.max(0, call.deadlineMs - RUN_CUT_BEFORE_MS - now()),
          with: () => throwError(() => new Error(`deadline of ${seconds} s passed`)),
          scheduler: io.scheduler ?? asyncScheduler,
        }),
      ),
      { defaultValue: '' },
    );
    for (const p of overrides.warnings) leaveBreadcrumb(stateDir, spec.name, 'config', p);
    // Recalled notes go in as one delimited block of reference material; a context the user fixed
    // in their own settings is theirs and goes in as given.
    const block = spec.fixedContextEnv && env[spec.fixedContextEnv] !== undefined ? context : asReferenceBlock(context);
    const envelope = toHookEnvelope(harness, spec.event, block, input, userNotice(spec, input, stateDir, ctx.notice ?? null));
    return { envelope, context: block, error: null };
  } catch (err) {
    return failed(spec, harness, input, stateDir, err);
  } finally {
    // After the answer is on its way: the caller writes it in this turn of the event loop.
    if (later) setImmediate(later);
  }
}

/** The breadcrumb kind of a path the recall server found not answering (last-event.json, logs/<hook>.log). */
const FILES_NOT_ANSWERING = 'files-not-answering';

/**
 * What is left to run on once the paths the recall server found not answering (HookRunIo.unreadable)
 * are taken out, each recorded as a breadcrumb. Without the project: nothing (`silent`, with why),
 * as every source of a call reads the project, except for a context the user fixed in their
 * settings (it reads nothing). Without the transcript: the payload minus its path, and the call's
 * recalls report the degradation (`transcript:timeout` in the recall log line).
 */
function readablePart(
  spec: HookSpec,
  env: Env,
  stateDir: string,
  unreadable: NonNullable<HookRunIo['unreadable']>,
  input: Record<string, unknown>,
):
  | { input: Record<string, unknown>; recallIo: Pick<RunIo, 'degraded'>; ctx: Pick<HookContext, 'unreadableTranscript'> }
  | { silent: string } {
  const fixed = spec.fixedContextEnv !== undefined && env[spec.fixedContextEnv] !== undefined;
  if (unreadable.project && !fixed) {
    leaveBreadcrumb(stateDir, spec.name, FILES_NOT_ANSWERING, unreadable.project);
    return { silent: unreadable.project };
  }
  const why = unreadable.transcript;
  if (!why) return { input, recallIo: {}, ctx: {} };
  leaveBreadcrumb(stateDir, spec.name, FILES_NOT_ANSWERING, why);
  return {
    input: withoutTranscript(input),
    recallIo: { degraded: [{ stage: 'transcript', reason: 'timeout', message: why }] },
    ctx: { unreadableTranscript: why },
  };
}

/** The answer of a call whose project does not answer: no context; on SessionStart, the person is told why once per session. */
function silentAnswer(spec: HookSpec, harness: Harness, input: Record<string, unknown>, stateDir: string, why: string) {
  const notice = userNotice(spec, input, stateDir, `recall: ${why}`);
  return { envelope: toHookEnvelope(harness, spec.event, '', input, notice), context: '', error: null };
}

/** The payload without its transcript path, under every name a harness gives it. */
function withoutTranscript(input: Record<string, unknown>): Record<string, unknown> {
  const { transcript_path: _a, transcriptPath: _b, ...rest } = input;
  return rest;
}

/** The answer of a hook that failed: an empty context, a breadcrumb, and on SessionStart a line for the person. */
function failed(spec: HookSpec, harness: Harness, input: Record<string, unknown>, stateDir: string, err: unknown) {
  const message = errorMessage(err);
  if (stateDir) leaveBreadcrumb(stateDir, spec.name, err instanceof Error ? err.name : 'Error', message);
  else if (err instanceof StateDirError) recordRefusedStateDir(spec.name, message);
  const notice = userNotice(spec, input, stateDir, hookFailure(message));
  return { envelope: toHookEnvelope(harness, spec.event, '', {}, notice), context: '', error: message };
}

/**
 * Where a refused state dir is recorded: the default one, ~/.reflect, when it is this user's (and
 * is not the refused one), so `recall status` and the hook logs there say why hooks went quiet.
 */
function recordRefusedStateDir(hook: string, message: string): void {
  try {
    const fallback = resolveStateDir(process.env['HOME'] || os.homedir(), null);
    checkStateDir(fallback);
    leaveBreadcrumb(fallback, hook, 'StateDirError', message);
  } catch {
    /* no state dir of this user to record it in: the SessionStart notice still says it */
  }
}

/** The SessionStart notice for the person, the first time in this session only (null otherwise). */
function userNotice(spec: HookSpec, input: Record<string, unknown>, stateDir: string, notice: string | null): string | null {
  if (spec.event !== 'SessionStart' || !notice) return null;
  return !stateDir || claimNotice(stateDir, pick(input, ['session_id', 'sessionId'])) ? notice : null;
}

/** Append a line to the hook's log (degradations, decisions); never throws. */
export function hookLog(ctx: HookContext, hook: string, line: string): void {
  logHookLine(ctx.stateDir, hook, line);
}
