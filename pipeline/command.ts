/**
 * The vocabulary of the library entry points: a recall command as the CLI, hooks and tools give it,
 * what a run may do to the outside world (RunIo), and what an opened KB (RecallSession) offers.
 */
import type { Observable } from 'rxjs';
import type { ModelClient } from '../core/ports.js';
import type { Note } from '../core/note/index.js';
import type { Degradation, RecallOutcome, ScoredCandidate } from '../core/types.js';
import type { ConfidenceFloor } from '../operators/filters.js';
import type { TraceSink } from '../operators/trace-stage.js';
import type { IndexHandle, RefreshReport } from '../sources/index/index.js';
import type { RecallConfig } from './config/index.js';
import type { RecallMode } from './recall/index.js';
import type { Scope } from './scope.js';
import type { KbSources } from './kb-sources/index.js';

export type OutputFormat = 'markdown' | 'json' | 'fleet-context';

export interface RecallCommand {
  query: string;
  limit?: number;
  mode: RecallMode;
  confidence: ConfidenceFloor;
  format: OutputFormat;
  field: string | null;
  tags: string[];
  domainHint: string;
  minOverlap?: number;
  /** Relevance floor (0..1, 0 = off); default: the CLI's (RECALL_FLOOR). */
  floor?: number;
  /** Show candidates under the floor as weak matches (the CLI's default); hooks never do. */
  showWeak?: boolean;
  maxTokens: number;
  maxChars?: number;
  cache: boolean;
  cacheTtl?: number;
  includeQuarantined?: boolean;
  mmr: boolean;
  mmrLambda?: number;
  global: boolean;
  allBranches: boolean;
  kb: string | null;
  /** Every `--kb` when several are searched together (the first is `kb`); absent for one KB. */
  kbs?: string[];
  sessionId: string | null;
  gapLog: boolean;
  followup: boolean;
  verbose: boolean;
}

/**
 * A recall request with every option at its default (markdown, any confidence, cache on, logs on):
 * callers spread it and set what differs.
 */
export const DEFAULT_COMMAND: Readonly<RecallCommand> = {
  query: '',
  mode: 'naive',
  confidence: 'ANY',
  format: 'markdown',
  field: null,
  tags: [],
  domainHint: '',
  maxTokens: 0,
  cache: true,
  mmr: true,
  global: false,
  allBranches: false,
  kb: null,
  sessionId: null,
  gapLog: true,
  followup: true,
  verbose: false,
};

export interface RunIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  now?: () => number;
  models?: ModelClient;
  /** Diagnostics sink (stderr in the CLI). */
  warn: (line: string) => void;
  /**
   * The settings the caller already read from `env` (a hook reads them once per call and passes
   * them down); absent, the session reads them from `env`.
   */
  config?: RecallConfig;
  /**
   * How the session gets its index; absent, it opens and refreshes it. The recall server passes
   * its pool's opener (indexes kept open, refreshed by its file watcher).
   */
  openIndex?: IndexOpener;
  /** Degradations met before the session opened (a hook's transcript not answering), reported with every recall. */
  degraded?: Degradation[];
}

/** An opened, refreshed index for a session; `release` (when given) replaces closing it. */
export interface ScopedIndex {
  index: IndexHandle;
  refresh: RefreshReport;
  degraded: Degradation[];
  release?: () => void;
}

export type IndexOpener = (
  config: RecallConfig,
  scope: Scope,
  io: RunIo,
  verbose: boolean,
  deadlineMs: number | undefined,
  now: () => number,
) => ScopedIndex;

/** A recall's outcome before anything is rendered or logged (null: the KB holds no live note). */
export interface RecallAnswer {
  outcome: RecallOutcome | null;
  scope: Scope;
  refresh: RefreshReport | null;
}

export interface RunResult {
  /** What goes to stdout ('' = nothing). */
  stdout: string;
  outcome: RecallOutcome | null;
  scope: Scope;
  refresh: RefreshReport | null;
}

/**
 * An opened KB: scope resolved, index refreshed, engines and models chosen, new notes embedded —
 * once — so that several recalls (a hook's probe and main recall) share that work.
 */
export interface RecallSession {
  readonly config: RecallConfig;
  readonly scope: Scope;
  readonly refresh: RefreshReport;
  /** Live notes in the KB (0 = nothing to recall). */
  readonly liveNotes: number;
  /** Every KB this session reads (one, or the zero-config sources together) and the sources skipped, with why. */
  readonly sources: KbSources;
  run(cmd: RecallCommand, opts?: RunOptions): Promise<RunResult>;
  /**
   * The recall's outcome, neither rendered nor logged: lazy and cancellable (unsubscribing stops
   * the pipeline, its arms and its model calls). Emits once and completes. The caller that renders
   * and selects by itself (a hook) then calls `record` with what it used.
   */
  outcome$(cmd: RecallCommand, opts?: RunOptions): Observable<RecallAnswer>;
  /**
   * The bookkeeping of a recall whose caller chose what to give (a hook): the recall log line, gap
   * log and follow-up record say `given` (the results injected), the gap log still follows what
   * the recall found. Never throws.
   */
  record(cmd: RecallCommand, outcome: RecallOutcome, given: readonly ScoredCandidate[], opts?: RunOptions): void;
  /** Glyphs of the active mode (loaded once). */
  glyphs(): Map<string, string>;
  /**
   * The notes each KB of the session can give (live, not quarantined, not retired by their own
   * frontmatter or a `supersedes` claim), read on call, with a version that changes whenever the
   * KB's index does (null for an index held in memory): a caller may keep what it derives from
   * them (the action hook's trigger index) until the version moves.
   */
  noteSets(): NoteSet[];
  close(): void;
}

export interface NoteSet {
  root: string;
  version: string | null;
  /**
   * The KB's index file, where a caller may keep next to it what it derives from the notes for
   * other processes (`<file>.<suffix>`, readable by this user only); absent for an index held in memory.
   */
  indexFile?: string;
  /** How many live notes the KB's index holds, counted when the session opened (reading them all costs more). */
  size?: number;
  notes(): Note[];
  /**
   * Notes retired by a successor (their `superseded_by`, or a note that declares it supersedes them),
   * each with its successor's key: never given, but a tool call that does what one of them said gets
   * what replaced it.
   */
  retired?(): { note: Note; by: string }[];
  /**
   * Successions among the given notes (by path): older path → the paths of the live notes that
   * supersede it (frontmatter `supersedes`, or the entity graph's `supersedes` relationship); may throw.
   */
  successors?(paths: readonly string[]): ReadonlyMap<string, ReadonlySet<string>>;
}

export interface RunOptions {
  deadlineMs?: number;
  /** Stage events as the recall runs (`recall trace`, `recall explain`). */
  trace?: TraceSink;
  /** Write no recall log, gap log or follow-up line (`recall replay`). */
  noLog?: boolean;
  /** Who asked (recorded in the recall log for replay): cli, a hook name, … */
  caller?: string;
}

export interface SessionOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
  verbose: boolean;
  /** Absolute time (epoch ms) by which everything must be done; work is budgeted against it. */
  deadlineMs?: number;
  /** The project for the affinity boost, when it is not the one of `cwd` (replay of a logged recall). */
  project?: string;
}
