/**
 * The KB the note commands work on: resolved like a recall's, its index opened the one way every
 * process opens it (pipeline/kb/kb-index.ts) and brought up to date, and notes looked up by ID.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type RecallConfig } from '../config/index.js';
import { resolveScope, type Scope } from '../scope.js';
import { checkKbDir } from '../run.js';
import { NotFoundError, UsageError } from '../../core/errors.js';
import { closeIndex, type IndexHandle, refreshWaiting, notesNamed } from '../../sources/index/index.js';
import { openKbIndex } from '../kb/index.js';
import { commandSources, sourcesLine } from '../kb-sources/index.js';
import { scopeHolding } from '../id-scope.js';
import type { Note } from '../../core/note/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface NotesIo {
  env: Env;
  cwd: string;
  warn: (line: string) => void;
}

export interface KbOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

interface OpenKb {
  config: RecallConfig;
  scope: Scope;
  index: IndexHandle;
}

/**
 * How long a note command waits for another process refreshing the same index (`recall index`, a
 * background refresher) before it reads the last committed index: writes wait longer than reads,
 * since a write resolved against a stale index could miss a note written a moment ago.
 */
const READ_REFRESH_WAIT_MS = 5_000;
const WRITE_REFRESH_WAIT_MS = 60_000;

/**
 * Resolve the KB like recall, bring its index up to date (waiting for another refresher, retrying
 * a busy database), run `fn`, close the index. When the index cannot be refreshed, `fn` reads the
 * last committed one and io.warn says why.
 */
export function withKb<T>(opts: KbOptions, io: NotesIo, fn: (kb: OpenKb) => T, mode: { write?: boolean } = {}): T {
  const config = loadConfig(io.env);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const scope = resolveScope(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd });
  return withScope(config, scope, io, fn, mode);
}

/**
 * Run `fn` on each source a hook here reads (pipeline/kb-sources: with no KB configured, the reflect
 * KB and the project's Claude Code memory, ...), in the order a recall reads them, one index open at
 * a time; a source folder that does not exist yet is passed by. io.warn names the sources read when
 * they were not one KB the user chose.
 */
export function withEachSource<T>(opts: KbOptions, io: NotesIo, fn: (kb: OpenKb) => T): T[] {
  const { config, sources } = commandSources(opts, io);
  const line = sourcesLine(sources);
  if (line) io.warn(line);
  const out: T[] = [];
  for (const scope of sources.read) {
    if (!fs.existsSync(scope.root)) continue;
    out.push(withScope(config, scope, io, fn, {}));
  }
  return out;
}

/**
 * Like withKb for reading the note `id` names: the KB that holds it among those a recall reads
 * (with no KB configured, a harness memory folder too), so every id an injected block shows opens.
 * io.warn names the sources looked in when they were not one KB the user chose, as withEachSource.
 */
export function withKbHolding<T>(opts: KbOptions, id: string, io: NotesIo, fn: (kb: OpenKb) => T): T {
  const { config, sources } = commandSources(opts, io);
  const line = sourcesLine(sources);
  if (line) io.warn(line);
  const scope = scopeHolding(config, sources.read, io.env, (h) => candidates(h, id.trim()).length > 0);
  return withScope(config, scope, io, fn, {});
}

function withScope<T>(config: RecallConfig, scope: Scope, io: NotesIo, fn: (kb: OpenKb) => T, mode: { write?: boolean }): T {
  const index = openKbIndex(config, scope.root);
  try {
    if (index.fallbackReason) io.warn(`recall: ${index.fallbackReason}`);
    const { notice } = refreshWaiting(index, mode.write ? WRITE_REFRESH_WAIT_MS : READ_REFRESH_WAIT_MS);
    if (notice) io.warn(`recall: ${notice}; reading the last committed index`);
    return fn({ config, scope, index });
  } finally {
    closeIndex(index);
  }
}

/**
 * The note `id` names when it is not in the KB being written but in a harness's memory folder a
 * hook here reads: its file and whose memory it is, so a write can say why it will not touch it.
 */
export function harnessMemoryNote(opts: KbOptions, id: string, io: NotesIo): { file: string; harness: string } | null {
  const { config, sources } = commandSources(opts, io);
  for (const scope of sources.read) {
    const harness = scope.kind === 'claude-memory' ? "Claude Code's" : scope.kind === 'codex-memory' ? "Codex's" : null;
    if (!harness || !fs.existsSync(scope.root)) continue;
    const found = withKbIfExists(scope, config, io.env, (h) => candidates(h, id.trim())[0] ?? null, READ_REFRESH_WAIT_MS);
    if (found) return { file: path.join(scope.root, found.path), harness };
  }
  return null;
}

/** Every note of the KB's own, of any location, whose id, file name or path matches `id`; the exact id first. */
export function candidates(h: IndexHandle, id: string): Note[] {
  return notesNamed(h, id.replace(/\.md$/i, ''));
}

/** The one note an ID names (live notes win over retired copies of the same id). */
export function resolveNote(h: IndexHandle, id: string, root: string, opts: { live?: boolean } = {}): Note {
  const found = candidates(h, id.trim());
  const live = found.filter((n) => n.location === 'documents');
  const pool = opts.live ? live : live.length ? live : found;
  if (pool.length === 0) {
    if (opts.live && found.length)
      throw new NotFoundError(
        `${id}: the note is ${found[0]!.location === 'forgotten' ? 'forgotten' : 'archived'} (${found[0]!.path}), not live`,
      );
    throw new NotFoundError(`${id}: no note with this id or file name in ${root}`);
  }
  const ids = new Set(pool.map((n) => n.key));
  if (ids.size > 1) throw new UsageError(`${id}: names ${ids.size} notes (${[...ids].slice(0, 5).join(', ')}); use the id`);
  return pool[0]!;
}

/** Like withKb for a KB that may not exist yet (null then). */
export function withKbIfExists<T>(
  scope: Scope,
  config: RecallConfig,
  env: Env,
  fn: (h: IndexHandle) => T,
  refreshWaitMs = WRITE_REFRESH_WAIT_MS,
): T | null {
  if (!fs.existsSync(scope.root)) return null;
  const h = openKbIndex(config, scope.root);
  try {
    refreshWaiting(h, refreshWaitMs);
    return fn(h);
  } finally {
    closeIndex(h);
  }
}
