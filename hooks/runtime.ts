/**
 * What every hook shares: tolerant stdin parsing, presence-first field lookup, env overrides that
 * fall back on malformed values (with a breadcrumb), a deadline, and the never-fail contract:
 * whatever happens the hook prints exactly one valid envelope and exits 0.
 */
import { loadConfig } from '../pipeline/config.js';
import { withConfigFile } from '../pipeline/config-file.js';
import { errorMessage } from '../core/errors.js';
import { harnessOf, toHookEnvelope, type Harness } from '../sinks/hook-envelope.js';
import type { HookEvent, HookName } from './hook-table.js';
import { leaveBreadcrumb, logHookLine } from '../sinks/breadcrumb.js';
import { asReferenceBlock } from '../sinks/safe-text.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Largest stdin a hook reads (harness payloads are small; a runaway pipe must not exhaust memory). */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;

/** Hook input as an object: empty, non-JSON, non-object or oversized stdin → {}. */
export function parseHookInput(text: string): Record<string, unknown> {
  if (!text || text.length > MAX_STDIN_BYTES) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Why a hook's stdin is not the JSON object a harness sends (the hook goes on with {}), or null. */
export function hookInputProblem(text: string): string | null {
  if (!text.trim()) return 'empty stdin (expected the harness hook JSON)';
  if (text.length > MAX_STDIN_BYTES) return `stdin larger than ${MAX_STDIN_BYTES} bytes; ignored`;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? null : 'stdin is JSON but not an object';
  } catch (err) {
    return `stdin is not JSON (${(err as Error).message.split('\n')[0]})`;
  }
}

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

/** Reads caller env overrides; a malformed value falls back to the default and is remembered. */
export class OverrideReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  has(name: string): boolean {
    return this.env[name] !== undefined;
  }

  num(name: string, def: number, min: number, max: number, integer = false): number {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return def;
    const n = Number(raw.trim());
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
      this.problems.push(`${name}=${JSON.stringify(raw)} is not ${integer ? 'an integer' : 'a number'} in ${min}..${max}; using ${def}`);
      return def;
    }
    return n;
  }
}

export interface HookContext {
  env: Env;
  cwd: string;
  harness: Harness;
  stateDir: string;
  /** Absolute deadline (epoch ms) for the whole hook. */
  deadlineMs: number;
  overrides: OverrideReader;
  now: () => number;
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
  run(input: Record<string, unknown>, ctx: HookContext): Promise<string>;
}

export interface HookIo {
  stdinText: string;
  env: Env;
  cwd: string;
  now?: () => number;
  /** When the hook process started (epoch ms): the deadline counts from there, stdin read included. */
  startedMs?: number;
}

/** Slack after the deadline before the safety net answers with an empty context. */
const SAFETY_GRACE_MS = 250;

/**
 * Run a hook to its envelope. Never rejects: an error, a malformed env value or a blown deadline
 * gives an empty context (and a breadcrumb), never a crash or a missing answer.
 */
export async function runHook(spec: HookSpec, io: HookIo): Promise<{ envelope: string; context: string; error: string | null }> {
  const now = io.now ?? Date.now;
  const started = io.startedMs ?? now();
  let harness: Harness = 'claude';
  let stateDir = '';
  const input = parseHookInput(io.stdinText);
  try {
    harness = harnessOf(io.env, input);
    // Models must never be fetched from a hook (a cold hub lookup blows any deadline).
    const file = withConfigFile(io.env);
    const env: Env = {
      ...file.env,
      HF_HUB_OFFLINE: io.env['HF_HUB_OFFLINE'] ?? '1',
      TRANSFORMERS_OFFLINE: io.env['TRANSFORMERS_OFFLINE'] ?? '1',
    };
    stateDir = loadConfig(env).stateDir;
    for (const w of file.warnings) leaveBreadcrumb(stateDir, spec.name, 'config', w);
    const stdinProblem = hookInputProblem(io.stdinText);
    if (stdinProblem) leaveBreadcrumb(stateDir, spec.name, 'stdin', stdinProblem);
    const overrides = new OverrideReader(env);
    const timeoutSec = overrides.num(spec.timeoutEnv, spec.defaultTimeoutSec, 0.05, 3600);
    const ctx: HookContext = { env, cwd: io.cwd, harness, stateDir, deadlineMs: started + timeoutSec * 1000, overrides, now };
    let timer: NodeJS.Timeout | undefined;
    const safety = new Promise<string>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`deadline of ${timeoutSec} s passed`)),
        Math.max(0, ctx.deadlineMs - now()) + SAFETY_GRACE_MS,
      );
      timer.unref();
    });
    let context: string;
    try {
      context = await Promise.race([spec.run(input, ctx), safety]);
    } finally {
      clearTimeout(timer);
    }
    for (const p of overrides.problems) leaveBreadcrumb(stateDir, spec.name, 'config', p);
    // Recalled notes go in as one delimited block of reference material; a context the user fixed
    // in their own settings is theirs and goes in as given.
    const block = spec.fixedContextEnv && env[spec.fixedContextEnv] !== undefined ? context : asReferenceBlock(context);
    return { envelope: toHookEnvelope(harness, spec.event, block, input), context: block, error: null };
  } catch (err) {
    const message = errorMessage(err);
    if (stateDir) leaveBreadcrumb(stateDir, spec.name, err instanceof Error ? err.name : 'Error', message);
    return { envelope: toHookEnvelope(harness, spec.event, ''), context: '', error: message };
  }
}

/** Append a line to the hook's log (degradations, decisions); never throws. */
export function hookLog(ctx: HookContext, hook: string, line: string): void {
  logHookLine(ctx.stateDir, hook, line);
}

/** Longest a hook waits for its stdin JSON, and its share of the deadline at most. */
const STDIN_WAIT_MS = 2000;
const STDIN_SHARE = 0.25;

/**
 * Read the hook's stdin (capped at `max` bytes): resolves at end of input, as soon as what arrived
 * is one complete JSON value (a harness may keep the pipe open after writing it), or when `waitMs`
 * passed (with what arrived: a partial payload parses to {} later). '' for a TTY or a closed stdin.
 */
export function readStdin(stream: NodeJS.ReadStream = process.stdin, max = MAX_STDIN_BYTES, waitMs = STDIN_WAIT_MS): Promise<string> {
  if (stream.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (text: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.pause();
      // Let go of the pipe: an open stdin must not keep the process alive after the answer.
      if (typeof (stream as { unref?: () => void }).unref === 'function') (stream as { unref: () => void }).unref();
      resolve(text);
    };
    const timer = setTimeout(() => finish(size > max ? '' : Buffer.concat(chunks).toString('utf8')), Math.max(0, waitMs));
    timer.unref();
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) return finish('');
      chunks.push(c);
      // Cheap test first: a JSON object or array ends with } or ] (trailing whitespace aside).
      const last = lastNonSpace(c);
      if (last === 0x7d || last === 0x5d) {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          JSON.parse(text);
          finish(text);
        } catch {
          /* not complete yet */
        }
      }
    });
    stream.on('end', () => finish(size > max ? '' : Buffer.concat(chunks).toString('utf8')));
    stream.on('error', () => finish(''));
  });
}

function lastNonSpace(b: Buffer): number {
  for (let i = b.length - 1; i >= 0; i -= 1) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

/** How long a hook may spend reading stdin, given its deadline (epoch ms). */
export function stdinWaitMs(deadlineMs: number, now = Date.now()): number {
  return Math.min(STDIN_WAIT_MS, Math.max(0, (deadlineMs - now) * STDIN_SHARE));
}

/**
 * The hook's deadline from its spec, env and config file (for sizing the stdin wait before runHook
 * parses it): a deadline set in recall.toml bounds the stdin read too.
 */
export function hookDeadlineMs(spec: HookSpec, env: Env, startedMs: number): number {
  let merged: Env = env;
  try {
    merged = withConfigFile(env).env;
  } catch {
    /* runHook reports the file's problem */
  }
  const sec = new OverrideReader(merged).num(spec.timeoutEnv, spec.defaultTimeoutSec, 0.05, 3600);
  return startedMs + sec * 1000;
}
