/**
 * `recall models pull`: downloads a model's ONNX export from the Hugging Face hub into the
 * transformers.js local layout. This is the ONLY code in recall that touches the network; every other
 * module loads models from `<modelsDir>/<id>/` and nothing else.
 *
 * Layout written: `<modelsDir>/<id>/{config.json, tokenizer.json, tokenizer_config.json,
 * special_tokens_map.json?}` and `onnx/model.onnx` (or `onnx/model_quantized.onnx` with `quantized`).
 *
 * Contract:
 * - Files come from `${endpoint}/${repo}/resolve/${revision}/${file}`; redirects (the hub sends large
 *   files to a CDN) are followed. Files are fetched one at a time and streamed to disk.
 * - Everything lands first in a temp folder `<modelsDir>/.pull-<random>/`. Only when every required file
 *   is complete are the files moved into `<modelsDir>/<id>/`, replacing files of the same names and
 *   keeping unrelated ones (a failed move is rolled back). On any failure the model folder is left as it
 *   was, and the temp folder is removed in every case. Temp folders older than a day, left by a killed
 *   process, are swept at the start of the next pull.
 * - Errors are `PullError`s with a stable code and a one-line message:
 *   E_PULL_NETWORK: hub unreachable (DNS, refused, no answer within `timeoutMs`), connection lost or
 *   stalled mid-file; E_PULL_HTTP: a required file answered with a non-2xx status (404 is fine for an
 *   optional file); E_PULL_SIZE: bytes written differ from Content-Length, or a file is empty;
 *   E_PULL_IO: the local disk failed. An invalid id or endpoint is a `UsageError`; cancelling through
 *   `signal` rejects with the signal's reason.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { describeCause, io, PullError } from './pull-errors.js';
import { downloadFile, type FetchContext } from './pull-download.js';

export { PullError, type PullErrorCode } from './pull-errors.js';

export interface PullOptions {
  /** Local model id = folder under modelsDir, e.g. 'cross-encoder/ms-marco-MiniLM-L-6-v2'. */
  id: string;
  /** Hub repository holding the ONNX export, e.g. 'Xenova/ms-marco-MiniLM-L-6-v2' (default: sourceRepoFor(id)). */
  repo?: string;
  modelsDir: string;
  /** Fetch `onnx/model_quantized.onnx` instead of `onnx/model.onnx` (default false). */
  quantized?: boolean;
  /** Hub base URL (default process.env.HF_ENDPOINT or 'https://huggingface.co'); files at `${endpoint}/${repo}/resolve/${revision}/${file}`. */
  endpoint?: string;
  /** Branch, tag or commit on the hub (default 'main'). */
  revision?: string;
  /**
   * Give up on a connection that does not answer within this many ms (default 15000, sensible range
   * 1000–120000). A whole file may take longer while bytes keep arriving: the same limit is a stall
   * timeout (no bytes for this long → abort).
   */
  timeoutMs?: number;
  /** Called as bytes arrive, at most every 100 ms per file plus once at the end of each file. */
  onProgress?: (file: string, received: number, total: number | null) => void;
  /** Injectable for tests (default global fetch). */
  fetchImpl?: typeof fetch;
  /** Cancels the pull; the promise then rejects with the signal's reason and nothing is left behind. */
  signal?: AbortSignal;
  /** Clock for progress throttling and the report's `ms` (default Date.now). */
  now?: () => number;
}

export interface PullReport {
  id: string;
  repo: string;
  /** Absolute model folder the files were moved into. */
  dir: string;
  /** Files written, in download order (a missing optional file is not listed). */
  files: { name: string; bytes: number }[];
  totalBytes: number;
  ms: number;
}

/** Default hub. */
export const DEFAULT_ENDPOINT = 'https://huggingface.co';
/** Default connect / stall timeout: generous for a slow link, short enough to fail fast offline. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** Temp folders older than this are leftovers of a killed pull (no live pull goes a day without a new file). */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;
/** Prefix of the per-pull temp folder inside modelsDir; the leading dot keeps it out of model listings. */
const TEMP_PREFIX = '.pull-';

/** Known ONNX mirrors of the models recall suggests. */
const ONNX_MIRRORS: Readonly<Record<string, string>> = {
  'cross-encoder/ms-marco-MiniLM-L-6-v2': 'Xenova/ms-marco-MiniLM-L-6-v2',
  'sentence-transformers/all-mpnet-base-v2': 'Xenova/all-mpnet-base-v2',
  'sentence-transformers/all-MiniLM-L6-v2': 'Xenova/all-MiniLM-L6-v2',
};

/**
 * Hub repository holding the ONNX export of a model: a known mirror, else the id itself (which covers
 * ids already under 'Xenova/' or 'onnx-community/').
 */
export function sourceRepoFor(id: string): string {
  return ONNX_MIRRORS[id] ?? id;
}

/** Files to fetch, in order: small files first so a bad repository fails cheaply, the ONNX graph last. */
export function filesFor(quantized: boolean): string[] {
  return [
    'config.json',
    'tokenizer_config.json',
    'special_tokens_map.json',
    'tokenizer.json',
    quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx',
  ];
}

/** Downloads the model into `<modelsDir>/<id>/` atomically (see the module contract). */
export async function pullModel(opts: PullOptions): Promise<PullReport> {
  const now = opts.now ?? Date.now;
  const started = now();
  const id = checkId(opts.id);
  const repo = checkId(opts.repo ?? sourceRepoFor(id), 'repository');
  const endpoint = checkEndpoint(opts.endpoint ?? defaultEndpoint());
  const revision = opts.revision ?? 'main';
  const timeoutMs = opts.timeoutMs !== undefined && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_TIMEOUT_MS;
  const modelsDir = path.resolve(opts.modelsDir);
  const dir = path.join(modelsDir, ...id.split('/'));
  const ctx: FetchContext = {
    endpoint,
    fetchImpl: opts.fetchImpl ?? fetch,
    timeoutMs,
    signal: opts.signal,
    onProgress: opts.onProgress,
    now,
    offlineHint: `models can only be pulled with network access; copy a model folder into ${dir} instead`,
  };

  opts.signal?.throwIfAborted();
  await io('create', modelsDir, () => fs.mkdir(modelsDir, { recursive: true }));
  await sweepStaleTemps(modelsDir, now());
  const tmp = await io('create a temp folder in', modelsDir, () => fs.mkdtemp(path.join(modelsDir, TEMP_PREFIX)));
  try {
    const files: { name: string; bytes: number }[] = [];
    for (const name of filesFor(opts.quantized === true)) {
      opts.signal?.throwIfAborted();
      const url = fileUrl(endpoint, repo, revision, name);
      const bytes = await downloadFile(ctx, url, name, path.join(tmp, ...name.split('/')));
      if (bytes !== null) files.push({ name, bytes });
    }
    opts.signal?.throwIfAborted();
    await installFiles(
      tmp,
      dir,
      files.map((f) => f.name),
    );
    const totalBytes = files.reduce((sum, f) => sum + f.bytes, 0);
    return { id, repo, dir, files, totalBytes, ms: now() - started };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Moves the downloaded files from `tmp` into `dir`, replacing same-named files and keeping others.
 * Each replaced file is first parked in the temp folder, so a failure part-way restores the old set.
 */
async function installFiles(tmp: string, dir: string, names: readonly string[]): Promise<void> {
  const parked = path.join(tmp, '.replaced');
  const dirExisted = await exists(dir);
  const done: { dest: string; backup: string | null; installed: boolean }[] = [];
  try {
    for (const name of names) {
      const parts = name.split('/');
      const dest = path.join(dir, ...parts);
      const backup = path.join(parked, ...parts);
      await fs.mkdir(path.dirname(dest), { recursive: true });
      const step = { dest, backup: null as string | null, installed: false };
      if (await exists(dest)) {
        await fs.mkdir(path.dirname(backup), { recursive: true });
        await fs.rename(dest, backup);
        step.backup = backup;
      }
      done.push(step);
      await fs.rename(path.join(tmp, ...parts), dest);
      step.installed = true;
    }
  } catch (err) {
    for (const step of done.reverse()) {
      if (step.installed) await fs.rm(step.dest, { force: true }).catch(() => undefined);
      if (step.backup !== null) await fs.rename(step.backup, step.dest).catch(() => undefined);
    }
    if (!dirExisted) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw new PullError('E_PULL_IO', `cannot move the downloaded files into ${dir} (${describeCause(err)})`);
  }
}

/** Removes `.pull-*` folders left by a pull that was killed (best effort, never fails the pull). */
async function sweepStaleTemps(modelsDir: string, now: number): Promise<void> {
  const entries = await fs.readdir(modelsDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(TEMP_PREFIX)) continue;
    const full = path.join(modelsDir, entry.name);
    const stat = await fs.stat(full).catch(() => null);
    if (stat && now - stat.mtimeMs > STALE_TEMP_MS) await fs.rm(full, { recursive: true, force: true }).catch(() => undefined);
  }
}

function defaultEndpoint(): string {
  const env = process.env['HF_ENDPOINT']?.trim();
  return env ? env : DEFAULT_ENDPOINT;
}

function checkEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UsageError(`invalid hub endpoint '${endpoint}': expected an http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`invalid hub endpoint '${endpoint}': expected an http(s) URL`);
  }
  return endpoint.replace(/\/+$/, '');
}

/** A model id or repo: relative path segments, none empty, '.', '..' or hidden (keeps writes inside modelsDir). */
function checkId(id: string, what = 'model id'): string {
  const segments = id.split('/');
  const bad = segments.some((s) => s === '' || s.startsWith('.') || /[\\:\0]/.test(s));
  if (bad || path.isAbsolute(id)) throw new UsageError(`invalid ${what} '${id}': expected a name like 'owner/model'`);
  return id;
}

function fileUrl(endpoint: string, repo: string, revision: string, file: string): string {
  const segs = (s: string): string => s.split('/').map(encodeURIComponent).join('/');
  return `${endpoint}/${segs(repo)}/resolve/${encodeURIComponent(revision)}/${segs(file)}`;
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}
