/**
 * `recall models pull|status` and `recall daemon status|stop`: library functions returning text,
 * called by the CLI. `models pull` is the only command that touches the network.
 */
import fs from 'node:fs';
import { loadConfig, modelSettings } from '../pipeline/config/index.js';
import { UsageError, errorMessage } from '../core/errors.js';
import { daemonEntry } from '../pipeline/model-client.js';
import { modelPresence, type ModelRole, type ModelSettings, daemonRequest } from '../sources/models/index.js';
import { daemonSocketPath } from '../sources/daemon-protocol.js';

type Env = Readonly<Record<string, string | undefined>>;

function settingsOf(env: Env): { settings: ModelSettings; stateDir: string } {
  const c = loadConfig(env);
  return { settings: modelSettings(c), stateDir: c.stateDir };
}

const mb = (n: number): string => (n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);

/** `recall models status --json`: the models dir and, per role, the model id, whether it is installed and what it serves. */
export function modelsStatusData(env: Env): {
  dir: string;
  models: { role: ModelRole; id: string; present: boolean; dtype: string | null; bytes: number; missing: string[]; serves: string }[];
} {
  const { settings } = settingsOf(env);
  return {
    dir: settings.modelsDir,
    models: (['rerank', 'embed'] as ModelRole[]).map((role) => {
      const p = modelPresence(settings, role);
      return { role, id: p.id, present: p.present, dtype: p.dtype, bytes: p.bytes, missing: p.missing, serves: p.serves };
    }),
  };
}

/** `recall daemon status --json`. */
export async function daemonStatusData(
  env: Env,
): Promise<{ socket: string; running: boolean; answering: boolean; status: unknown; error: string | null }> {
  const opts = clientOptions(env);
  if (!fs.existsSync(opts.socket)) return { socket: opts.socket, running: false, answering: false, status: null, error: null };
  try {
    const res = await daemonRequest({ op: 'status' }, opts, AbortSignal.timeout(3000));
    return {
      socket: opts.socket,
      running: true,
      answering: res.ok,
      status: res.ok ? (res.status ?? null) : null,
      error: res.ok ? null : String(res.error),
    };
  } catch (err) {
    return { socket: opts.socket, running: true, answering: false, status: null, error: errorMessage(err) };
  }
}

export function modelsStatus(env: Env): string {
  const { settings } = settingsOf(env);
  const lines = [`models dir: ${settings.modelsDir}`];
  for (const role of ['rerank', 'embed'] as ModelRole[]) {
    const p = modelPresence(settings, role);
    lines.push(
      `${role === 'rerank' ? 'cross-encoder' : 'embedder     '}  ${p.id}  ${p.present ? `present (${p.dtype}, ${mb(p.bytes)})` : `missing: ${p.missing.join(', ')}`}  — serves: ${p.serves}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface PullCommand {
  ce?: string;
  embed?: string;
  quantized: boolean;
  only?: ModelRole;
}

/**
 * The model runtime must be loadable for pulled models to serve: a clone has it from `npm ci`; the
 * plugin payload has none, so it is installed here with npm into the models dir (the only other
 * network step, asked for by the same command). The line to report, or '' when nothing was needed.
 */
async function ensureModelRuntime(modelsDir: string, progress: (line: string) => void): Promise<string> {
  const { MODEL_RUNTIME_PACKAGE, installedRuntimeEntry, runtimeDir, runtimeInstallArgs } =
    await import('../sources/models/model-runtime.js');
  try {
    await import(MODEL_RUNTIME_PACKAGE);
    return '';
  } catch {
    if (installedRuntimeEntry(modelsDir)) return '';
  }
  const args = runtimeInstallArgs(modelsDir);
  progress(`installing the model runtime: npm ${args.join(' ')}`);
  fs.mkdirSync(runtimeDir(modelsDir), { recursive: true });
  const { spawnSync } = await import('node:child_process');
  const started = Date.now();
  const res = spawnSync('npm', args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (res.status !== 0 || !installedRuntimeEntry(modelsDir)) {
    const why = res.error ? res.error.message : (res.stderr ?? '').trim().split('\n').pop() || `npm exited with ${res.status}`;
    throw new Error(`could not install the model runtime (${why}); run it yourself: npm ${args.join(' ')}`);
  }
  return `installed the model runtime (${MODEL_RUNTIME_PACKAGE}) in ${runtimeDir(modelsDir)} in ${((Date.now() - started) / 1000).toFixed(1)} s`;
}

export async function modelsPull(cmd: PullCommand, env: Env, progress: (line: string) => void): Promise<string> {
  const { pullModel, sourceRepoFor } = await import('../sources/models/pull.js');
  const { settings } = settingsOf(env);
  const jobs: { role: ModelRole; id: string }[] = [];
  if (cmd.only !== 'embed') jobs.push({ role: 'rerank', id: cmd.ce ?? settings.ceModel });
  if (cmd.only !== 'rerank') jobs.push({ role: 'embed', id: cmd.embed ?? settings.embedModel });
  const out: string[] = [];
  const runtime = await ensureModelRuntime(settings.modelsDir, progress);
  if (runtime) out.push(runtime);
  for (const job of jobs) {
    let last = 0;
    const report = await pullModel({
      id: job.id,
      repo: sourceRepoFor(job.id),
      modelsDir: settings.modelsDir,
      quantized: cmd.quantized,
      ...(env['HF_ENDPOINT'] ? { endpoint: env['HF_ENDPOINT'] } : {}),
      onProgress: (file, received, total) => {
        const now = Date.now();
        if (now - last < 200 && received !== total) return;
        last = now;
        progress(`${job.id}: ${file} ${mb(received)}${total ? ` / ${mb(total)}` : ''}`);
      },
    });
    out.push(
      `pulled ${job.id} from ${report.repo}: ${report.files.length} files, ${mb(report.totalBytes)} in ${(report.ms / 1000).toFixed(1)} s → ${report.dir}`,
    );
  }
  return `${out.join('\n')}\n`;
}

function clientOptions(env: Env): { socket: string; spawnCommand: string[]; env: Env; noSpawn: true } {
  const { settings, stateDir } = settingsOf(env);
  return { socket: daemonSocketPath(stateDir, settings), spawnCommand: [process.execPath, daemonEntry() ?? ''], env, noSpawn: true };
}

export async function daemonStatus(env: Env): Promise<string> {
  const opts = clientOptions(env);
  if (!fs.existsSync(opts.socket)) return `model daemon: not running (socket ${opts.socket})\n`;
  try {
    const res = await daemonRequest({ op: 'status' }, opts, AbortSignal.timeout(3000));
    if (!res.ok || !res.status) return `model daemon: answered with an error: ${res.ok ? 'no status' : res.error}\n`;
    const s = res.status;
    return (
      `model daemon: running, pid ${s.pid}, up ${s.uptimeSec} s, ${s.requests} requests, RSS ${mb(s.rssBytes)}, ` +
      `idle exit after ${s.idleTimeoutSec || 'never'}${s.idleTimeoutSec ? ' s' : ''}\n` +
      `  cross-encoder ${s.models.ce} (${s.models.loaded.rerank ? 'loaded' : 'not loaded yet'}), embedder ${s.models.embed} (${s.models.loaded.embed ? 'loaded' : 'not loaded yet'})\n` +
      `  socket ${opts.socket}\n`
    );
  } catch (err) {
    return `model daemon: not answering (${errorMessage(err)}); socket ${opts.socket}\n`;
  }
}

export async function daemonStop(env: Env): Promise<string> {
  const opts = clientOptions(env);
  if (!fs.existsSync(opts.socket)) return 'model daemon: not running\n';
  try {
    await daemonRequest({ op: 'shutdown' }, opts, AbortSignal.timeout(3000));
    return 'model daemon: stopped\n';
  } catch (err) {
    fs.rmSync(opts.socket, { force: true });
    return `model daemon: was not answering (${errorMessage(err)}); removed its stale socket\n`;
  }
}

export function parseRole(v: unknown): ModelRole | undefined {
  if (v === undefined) return undefined;
  if (v === 'rerank' || v === 'ce') return 'rerank';
  if (v === 'embed') return 'embed';
  throw new UsageError(`--only must be rerank or embed (got ${JSON.stringify(v)})`);
}
