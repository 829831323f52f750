/**
 * An opened KB: scope resolved, index refreshed, engines and models chosen, new notes embedded,
 * once, so that several recalls (a hook's probe and main recall) share that work.
 */
import type { Observable } from 'rxjs';
import { checkStateDir, ensurePrivateDir } from '../../io/atomic-write.js';
import { errorMessage } from '../../core/errors.js';
import type { ModelClient } from '../../core/ports.js';
import type { ArmHit, Degradation } from '../../core/types.js';
import type { Note } from '../../core/note/index.js';
import {
  classifyDbError,
  closeIndex,
  countNotes,
  indexGeneration,
  liveNotes as liveNotesOf,
  markSuspect,
  successorNotes,
  supersededKeys,
  supersedingPairs,
  setBusyTimeout,
  type IndexHandle,
  type RefreshReport,
} from '../../sources/index/index.js';
import { teamLiveArm } from '../../sources/arms/index.js';
import { loadTeamSettings } from '../../sources/team/index.js';
import { loadGlyphs } from '../../sinks/modes.js';
import type { RecallSession, RunIo, SessionOptions } from '../command.js';
import { loadConfig, type RecallConfig } from '../config/index.js';
import { linkHub, resolveEngines, type Engines } from '../recall/index.js';
import { checkKbDir } from '../kb/index.js';
import { createModelClient } from '../model-client.js';
import { detectProject, isShard, projectDirOf, type Scope } from '../scope.js';
import { resolveSources, type KbSources } from '../kb-sources/index.js';
import { recordGiven, runInSession, sessionOutcome$ } from './run.js';
import { embedNewNotes, openAndRefresh } from './session-index.js';

/** Longest a read statement waits for the index lock (SQLite busy timeout) when no deadline is nearer. */
const READ_BUSY_MS = 5000;

/** What every recall of a session shares. */
export interface OpenedKb {
  config: RecallConfig;
  verbose: boolean;
  scope: Scope;
  index: IndexHandle;
  refresh: RefreshReport;
  /** Live notes in the KB (0 = nothing to recall, -1 = the count could not be read). */
  liveNotes: number;
  engines: Engines;
  models: ModelClient;
  now: () => number;
  io: RunIo;
  deadlineMs?: number;
  /** Degradations of opening the KB (index, embedding), reported with every recall. */
  early: Degradation[];
  teamArm?: (query: string, limit: number, timeoutMs: number) => Observable<ArmHit[]>;
  /** The current project for the affinity boost, detected at most once. */
  currentProject: () => string;
  /** Glyphs of the active mode, loaded at most once. */
  glyphs: () => Map<string, string>;
}

/**
 * -1 when the count cannot be read (a lock held past the busy timeout, a damaged page): the recall
 * still runs and its arms say what failed, rather than reporting an empty KB.
 */
function liveNoteCount(index: IndexHandle, degraded: Degradation[]): number {
  try {
    return countNotes(index).live;
  } catch (err) {
    if (classifyDbError(err) === 'corrupt') markSuspect(index);
    degraded.push({ stage: 'index', reason: 'error', message: `index unreadable: ${errorMessage(err)}` });
    return -1;
  }
}

function once<T>(make: () => T): () => T {
  let value: { v: T } | null = null;
  return () => (value ??= { v: make() }).v;
}

type Opened = Pick<OpenedKb, 'config' | 'verbose' | 'scope' | 'index' | 'refresh' | 'now' | 'io'>;

/** Engines, models, the team arm and new-note embedding on top of an opened, refreshed index. */
async function prepare(o: Opened, opts: SessionOptions, indexDegraded: Degradation[]): Promise<OpenedKb> {
  const { config, scope, index, now, io } = o;
  const liveNotes = liveNoteCount(index, indexDegraded);
  const engines = resolveEngines(config, scope.root);
  const models = io.models ?? createModelClient(config, io.env).client;
  // The team store's settings (its config file, connection defaults) matter only to the live team arm.
  const team = config.teamArm ? loadTeamSettings(io.env, config.stateDir) : null;
  const teamArm = team?.liveArm && team.url ? (q: string, limit: number, ms: number) => teamLiveArm(q, limit, team, ms, models) : undefined;
  const embedded = liveNotes > 0 ? await embedNewNotes(index, models, config, ((opts.deadlineMs ?? Infinity) - now()) / 4) : null;
  return {
    ...o,
    liveNotes,
    engines,
    models,
    ...(opts.deadlineMs !== undefined ? { deadlineMs: opts.deadlineMs } : {}),
    early: [...(io.degraded ?? []), ...indexDegraded, ...(embedded ? [embedded] : [])],
    ...(teamArm ? { teamArm } : {}),
    currentProject: once(() => opts.project ?? (isShard(scope) ? '' : detectProject(config, io.cwd))),
    glyphs: once(() => loadGlyphs({ mode: config.mode, modesDir: config.modesDir, projectDir: projectDirOf(config, io.cwd), cwd: io.cwd })),
  };
}

/**
 * Open what a recall reads: the KB the scope rules choose, or, with no KB configured, the
 * zero-config sources (pipeline/kb-sources), several of them searched together as `--kb A --kb B`.
 */
export async function openSession(opts: SessionOptions, given: RunIo): Promise<RecallSession> {
  // Read once: every KB of the session and every recall in it use these settings.
  const config = given.config ?? loadConfig(given.env);
  const io: RunIo = { ...given, config };
  const verbose = opts.verbose || config.debug;
  if (verbose) for (const w of config.warnings) io.warn(`recall: ${w}`);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const sources = resolveSources(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd, env: io.env });
  if (verbose) for (const s of sources.skipped) io.warn(`recall: not reading ${s.root || s.source} (${s.why})`);
  if (sources.read.length === 1) return openKbSession(opts, io, sources.read[0]!, sources);
  const { combineSessions } = await import('./multi-kb.js');
  const sessions: RecallSession[] = [];
  try {
    for (const scope of sources.read) sessions.push(await openKbSession({ ...opts, verbose }, io, scope, sources));
  } catch (err) {
    for (const s of sessions) s.close();
    throw err;
  }
  return combineSessions(sessions, io.warn, sources);
}

/** The notes a KB can give, and those retired by a note it can give (NoteSet.retired). */
interface NoteSplit {
  givable: Note[];
  retired: { note: Note; by: string }[];
}

/**
 * The KB's live notes a recall may give: not quarantined, not retired by their own frontmatter
 * (superseded_by, status superseded or archived), not named by another note's `supersedes`. And the
 * retired ones that name their successor (their `superseded_by`, or the note that claims them), with
 * its key: not quarantined, not archived.
 */
function splitNotes(index: IndexHandle): NoteSplit {
  const claimed = supersededKeys(index);
  const all = liveNotesOf(index, true);
  const givable = all.filter(
    (n) => !n.quarantine && !n.supersededBy && n.status !== 'superseded' && n.status !== 'archived' && !claimed.has(n.key),
  );
  const byKey = new Map(all.map((n) => [n.key, n]));
  const byId = new Map(all.map((n) => [n.displayId, n]));
  const successors = new Map<string, string[]>();
  const offer = (older: string, newer: string): void => {
    if (older !== newer) successors.set(older, [...(successors.get(older) ?? []), newer]);
  };
  for (const { older, newer } of supersedingPairs(index)) offer(older, newer);
  for (const n of all) {
    const by = n.supersededBy ? (byKey.get(n.supersededBy) ?? byId.get(n.supersededBy)) : undefined;
    if (by) offer(n.key, by.key);
  }
  const isGivable = new Set(givable.map((n) => n.key));
  // Of several successors, one the KB gives (not an archived one), whatever order the files come in.
  const successor = (key: string): string | undefined => {
    const offered = successors.get(key) ?? [];
    return offered.find((k) => isGivable.has(k)) ?? offered[0];
  };
  const retired = all
    .filter((n) => !isGivable.has(n.key) && !n.quarantine && n.status !== 'archived' && successors.has(n.key))
    .map((note) => ({ note, by: successor(note.key)! }));
  return { givable, retired };
}

/** splitNotes, read once per index generation (the notes and the retired ones are asked for together). */
function splitOnce(index: IndexHandle): () => NoteSplit {
  let kept: { gen: number; split: NoteSplit } | null = null;
  return () => {
    const gen = indexGeneration(index);
    if (kept?.gen !== gen) kept = { gen, split: splitNotes(index) };
    return kept.split;
  };
}

/** One KB, its scope already resolved. */
export async function openKbSession(opts: SessionOptions, io: RunIo, scope: Scope, sources?: KbSources): Promise<RecallSession> {
  const config = io.config ?? loadConfig(io.env);
  const verbose = opts.verbose || config.debug;
  const now = io.now ?? Date.now;
  checkStateDir(config.stateDir);
  ensurePrivateDir(config.stateDir);
  if (verbose) io.warn(`recall: reading ${scope.root} (${scope.reason})`);
  const { index, refresh, degraded, release } = (io.openIndex ?? openAndRefresh)(config, scope, io, verbose, opts.deadlineMs, now);
  const closeOrRelease = release ?? ((): void => closeIndex(index));
  // Reading may wait for another process's lock longer than a refresh's write does (the wasm
  // driver's readers take turns with every other process), but never more than a quarter of what is
  // left before the deadline: a wait blocks the process, and the deadline timer with it.
  setBusyTimeout(
    index,
    opts.deadlineMs === undefined ? READ_BUSY_MS : Math.min(READ_BUSY_MS, Math.max(100, (opts.deadlineMs - now()) / 4)),
  );
  try {
    const kb = await prepare({ config, verbose, scope, index, refresh, now, io }, opts, degraded);
    const split = splitOnce(index);
    let closed = false;
    return {
      config,
      scope,
      refresh,
      liveNotes: kb.liveNotes,
      sources: sources ?? { read: [scope], skipped: [], zeroConfig: false },
      run: (cmd, runOpts = {}) => runInSession(kb, cmd, runOpts),
      outcome$: (cmd, runOpts = {}) => sessionOutcome$(kb, cmd, runOpts),
      record: (cmd, outcome, given, runOpts = {}) => recordGiven(kb, cmd, outcome, given, runOpts),
      glyphs: kb.glyphs,
      noteSets: () => [
        {
          root: scope.root,
          version: index.file === ':memory:' ? null : `${index.file}#${indexGeneration(index)}`,
          ...(index.file === ':memory:' ? {} : { indexFile: index.file }),
          size: kb.liveNotes,
          notes: () => split().givable,
          retired: () => split().retired,
          successors: (paths) => successorNotes(index, paths, linkHub(kb.liveNotes), now()),
        },
      ],
      close: () => {
        if (!closed) closeOrRelease();
        closed = true;
      },
    };
  } catch (err) {
    closeOrRelease();
    throw err;
  }
}
