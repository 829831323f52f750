/**
 * The KB indexes a recall server keeps open, each with a file watcher, and the index opener the
 * server's recall sessions use instead of open-and-refresh.
 *
 * A one-shot recall compares every file of the KB with its index (a stat per file: ~1 s at 100k
 * files) so that an edit shows in the very next recall. Here that comparison runs only when the
 * watcher saw an event since the last one (or cannot vouch for the KB); the server passes its event
 * fence before every request, so a write that finished before the request was sent is always seen.
 * The comparison itself is the one-shot path's, so both paths index exactly the same files.
 */
import fs from 'node:fs';
import type { RecallConfig } from '../pipeline/config/index.js';
import type { Scope } from '../pipeline/scope.js';
import type { RunIo } from '../pipeline/command.js';
import { refreshScoped, type IndexOpener, type ScopedIndex } from '../pipeline/session/index.js';
import { kbIndexOptions, openKbIndex } from '../pipeline/kb/index.js';
import {
  closeIndex,
  indexFileFor,
  indexGeneration,
  indexProblems,
  indexWarnings,
  type IndexHandle,
  type RefreshReport,
  type IndexWorkers,
  type OffloadStats,
} from '../sources/index/index.js';
import { KbWatcher } from './watcher.js';

/** Even with a quiet watcher, a KB is compared with its index again after this long (a safety net). */
export const SAFETY_CHECK_MS = 10 * 60_000;

interface Held {
  file: string;
  /** The options it was opened with (see open). */
  opened: string;
  root: string;
  /** Open handle; the WebAssembly driver's is closed between requests (see release). */
  index: IndexHandle | null;
  ino: number;
  watcher: KbWatcher;
  /** Files in the KB at the last complete comparison, or -1 before one. */
  total: number;
  checkedAt: number;
  /** Sessions using the handle now (they interleave while awaiting). */
  users: number;
  /** No longer in the pool: the last session using it closes the handle. */
  dropped: boolean;
}

function inode(file: string): number {
  try {
    return fs.statSync(file).ino;
  } catch {
    return -1;
  }
}

export class KbPool {
  private readonly held = new Map<string, Held>();

  /** `workers`: threads that run each held index's lookups in parallel (absent = in the server's thread). */
  constructor(
    private readonly clock: () => number = Date.now,
    private readonly workers: IndexWorkers | null = null,
  ) {}

  /** The opener the server's recalls get their indexes through (RunIo.openIndex). */
  readonly opener: IndexOpener = (config, scope, io, verbose, deadlineMs, now) => this.open(config, scope, io, verbose, deadlineMs, now);

  status(): { root: string; index: string; watching: boolean; why: string | null; dirs: number }[] {
    return [...this.held.values()].map((h) => ({
      root: h.root,
      index: h.file,
      watching: h.watcher.vouches,
      why: h.watcher.why,
      dirs: h.watcher.dirs,
    }));
  }

  /** What the index lookup threads did (null: the server runs lookups in its own thread). */
  lookups(): OffloadStats | null {
    return this.workers?.stats() ?? null;
  }

  /** Compare every KB with its index on its next request (file events may have been missed). */
  distrust(): void {
    for (const h of this.held.values()) h.watcher.dirty = true;
  }

  close(): void {
    for (const h of this.held.values()) this.drop(h);
    this.held.clear();
    this.workers?.close();
  }

  private drop(h: Held): void {
    h.watcher.close();
    h.dropped = true;
    if (h.users === 0) this.closeHandle(h);
  }

  /**
   * The held index of `file`, unless it must be reopened: the file was replaced (set aside as
   * corrupt, deleted) or marked for a check, so that opening heals it as in a one-shot recall; or
   * this call opens it otherwise (`opened`: links followed, fleet ledger, attached shard). One held
   * index per file: two handles of one file opened otherwise would each refresh it to their own
   * files and vouch for it afterwards, serving one call's settings to the next.
   */
  private reusable(file: string, opened: string): Held | undefined {
    const h = this.held.get(file);
    if (h && (inode(file) !== h.ino || fs.existsSync(`${file}.suspect`) || h.opened !== opened)) {
      this.drop(h);
      this.held.delete(file);
      return undefined;
    }
    return h;
  }

  private open(
    config: RecallConfig,
    scope: Scope,
    io: RunIo,
    verbose: boolean,
    deadlineMs: number | undefined,
    now: () => number,
  ): ScopedIndex {
    const options = kbIndexOptions(config, scope.root);
    const file = indexFileFor(scope.root, config.stateDir);
    const opened = JSON.stringify([options.followOutside, options.fleetLedger, (options.attached ?? []).map((a) => [a.prefix, a.root])]);
    let h = this.reusable(file, opened);
    const index = h?.index ?? openKbIndex(config, scope.root);
    if (h && !h.index) h.ino = inode(file);
    // An index that could not be opened on disk (in memory for this call) is not kept.
    if (index.fallbackReason || index.file === ':memory:') return refreshScoped(index, io, verbose, deadlineMs, now);
    if (!h) {
      h = {
        file,
        opened,
        root: scope.root,
        index,
        ino: inode(file),
        watcher: new KbWatcher([scope.root, ...(options.attached ?? []).map((a) => a.root)]),
        total: -1,
        checkedAt: 0,
        users: 0,
        dropped: false,
      };
      this.held.set(file, h);
    }
    h.index = index;
    this.attachThreads(index);
    h.users += 1;
    const held = h;
    // The WebAssembly driver has no WAL: while a process keeps its index open, other writers pause
    // after each batch for it. Close it after each request; it reopens in milliseconds.
    const release = (): void => {
      held.users -= 1;
      if (held.users === 0 && (held.dropped || index.db.driver === 'wasm')) this.closeHandle(held);
    };
    const fresh = held.watcher.vouches && !held.watcher.dirty && held.total >= 0 && this.clock() - held.checkedAt < SAFETY_CHECK_MS;
    if (fresh) return { index, refresh: unchangedReport(index, held.total, verbose), degraded: [], release };
    held.watcher.markClean();
    const out = refreshScoped(index, io, verbose, deadlineMs, now);
    if (out.refresh.complete) {
      held.total = out.refresh.total;
      held.checkedAt = this.clock();
    } else {
      // Refreshed only in part (deadline, another writer): compare again next time.
      held.watcher.dirty = true;
    }
    return { ...out, release };
  }

  /**
   * Let the worker threads run this index's lookups. They read the file through their own
   * connections: WAL only (the WebAssembly driver has none, and its readers would wait for every write).
   */
  private attachThreads(index: IndexHandle): void {
    if (!this.workers || index.offload || index.db.driver === 'wasm') return;
    try {
      index.offload = this.workers.forIndex(index);
    } catch {
      // The index's id could not be read (a damaged file): its lookups stay in this thread, where
      // the recall reports what is wrong with it.
    }
  }

  private closeHandle(h: Held): void {
    if (h.index) closeIndex(h.index);
    h.index = null;
  }
}

/** What a one-shot refresh reports when no file changed (problems are listed only when verbose). */
function unchangedReport(index: IndexHandle, total: number, verbose: boolean): RefreshReport {
  return {
    total,
    added: 0,
    updated: 0,
    removed: 0,
    unchanged: total,
    problems: verbose ? indexProblems(index) : [],
    newProblems: [],
    warnings: verbose ? indexWarnings(index) : [],
    generation: indexGeneration(index),
    ms: 0,
    skipped: true,
    complete: true,
    pending: 0,
  };
}
