/**
 * Tells the recall server whether a KB may have changed since it last compared the KB with its index,
 * without reading the KB on every recall.
 *
 * One non-recursive `fs.watch` per folder that holds notes (inotify on Linux: nothing is polled, an
 * idle server uses no CPU). Node 20's own recursive `fs.watch` on Linux puts a watcher on every
 * file and re-lists a whole folder for each new file, far too heavy for a 100k-note KB; a
 * per-folder watch is what inotify offers natively.
 *
 * The watcher only ever says "maybe changed" (any event) or "unchanged" (no event). It cannot vouch
 * for what it does not see: a note reached through a symlink (its target may live outside every
 * watched folder), more folders than it is willing to watch, or a watch that failed. In those cases
 * `vouches` is false and the server compares every file, as a one-shot recall does.
 */
import fs from 'node:fs';
import path from 'node:path';

/** More folders than this under one KB: not watched (each watch costs kernel memory). */
export const MAX_WATCHED_DIRS = 4000;

export class KbWatcher {
  /** Something may have changed since `markClean()`. */
  dirty = true;
  /** Why the watcher cannot vouch for the KB (null while it can). */
  why: string | null = null;
  private readonly watches = new Map<string, fs.FSWatcher>();

  constructor(private readonly roots: readonly string[]) {
    for (const root of roots) this.watchRoot(root);
  }

  get vouches(): boolean {
    return this.why === null;
  }

  get dirs(): number {
    return this.watches.size;
  }

  /** Called just before the KB is compared with its index: events from then on make it dirty again. */
  markClean(): void {
    this.dirty = false;
  }

  close(): void {
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
  }

  private giveUp(why: string): void {
    if (this.why === null) this.why = why;
    this.close();
  }

  /** A reflect KB keeps notes in documents/ and archived/; any other folder of markdown is read whole. */
  private watchRoot(root: string): void {
    const reflect = ['documents', 'archived'].some((d) => isDir(path.join(root, d)));
    if (!reflect) return this.watchTree(root, root, true);
    // The root itself: a documents/ folder appearing changes how the KB is laid out.
    this.watchDir(root, root, false);
    for (const d of ['documents', 'archived']) if (isDir(path.join(root, d))) this.watchTree(path.join(root, d), root, true);
  }

  /** Watch a folder and every folder below it (those the KB walk reads). */
  private watchTree(dir: string, root: string, all: boolean): void {
    if (!this.watchDir(dir, root, all)) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (this.why !== null) return;
      if (e.isSymbolicLink() && linkMatters(path.join(dir, e.name))) {
        this.giveUp(`${path.join(dir, e.name)} is a symlink: changes behind it are not seen`);
        return;
      }
      if (e.isDirectory() && walked(dir, root, e.name, all)) this.watchTree(path.join(dir, e.name), root, all);
    }
  }

  /** Start watching one folder; false when the watcher gave up. `recurse`: new subfolders get watched too. */
  private watchDir(dir: string, root: string, recurse: boolean): boolean {
    if (this.why !== null) return false;
    if (this.watches.has(dir)) return true;
    if (this.watches.size >= MAX_WATCHED_DIRS) {
      this.giveUp(`more than ${MAX_WATCHED_DIRS} folders`);
      return false;
    }
    try {
      const w = fs.watch(dir, { persistent: false }, (_type, name) => this.onEvent(dir, root, recurse, name));
      w.on('error', (err) => this.giveUp(`watch of ${dir} failed: ${err.message}`));
      this.watches.set(dir, w);
      return true;
    } catch (err) {
      this.giveUp(`cannot watch ${dir}: ${(err as Error).message}`);
      return false;
    }
  }

  private onEvent(dir: string, root: string, recurse: boolean, name: string | Buffer | null): void {
    this.dirty = true;
    if (name === null) return;
    const child = path.join(dir, String(name));
    if (dir === root && !recurse) {
      // The root of a reflect KB: only documents/ and archived/ matter, and a new one is watched.
      if ((name === 'documents' || name === 'archived') && isDir(child)) this.watchTree(child, root, true);
      return;
    }
    let st: fs.Stats;
    try {
      st = fs.lstatSync(child);
    } catch {
      return;
    }
    if (st.isSymbolicLink() && linkMatters(child)) this.giveUp(`${child} is a symlink: changes behind it are not seen`);
    else if (st.isDirectory() && walked(dir, root, String(name), recurse)) this.watchTree(child, root, recurse);
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A link the KB walk would follow: to a folder, or named like a note or a sidecar. */
function linkMatters(abs: string): boolean {
  return /\.md$/i.test(abs) || abs.endsWith('.entities.yaml') || isDir(abs);
}

/** Whether the KB walk reads this subfolder (a flat KB skips dot-folders but .forgotten, and node_modules). */
function walked(parent: string, root: string, name: string, all: boolean): boolean {
  if (!all) return false;
  if (parent !== root) return true;
  return !(name.startsWith('.') && name !== '.forgotten') && name !== 'node_modules';
}

/**
 * A barrier for file events. All `fs.watch` handles of a process read one inotify queue, in order:
 * touching a file in a watched folder of our own and waiting for its event guarantees that every
 * event queued before it (a note written just before the client connected) has been handled.
 * A write that returned before the request was sent is therefore always seen.
 */
export class EventFence {
  private readonly dir: string;
  private readonly waiting = new Map<string, () => void>();
  private readonly watch: fs.FSWatcher;
  private seq = 0;

  constructor(runDir: string) {
    this.dir = fs.mkdtempSync(path.join(runDir, 'fence-'));
    this.watch = fs.watch(this.dir, { persistent: false }, (_t, name) => {
      const key = String(name);
      const done = this.waiting.get(key);
      if (done) {
        this.waiting.delete(key);
        done();
      }
    });
  }

  /** Resolves once every file event queued before this call was delivered (rejects after `timeoutMs`). */
  pass(timeoutMs = 1000): Promise<void> {
    const key = `f${(this.seq += 1)}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new Error('file events did not arrive in time'));
      }, timeoutMs);
      this.waiting.set(key, () => {
        clearTimeout(timer);
        fs.rmSync(path.join(this.dir, key), { force: true });
        resolve();
      });
      fs.writeFileSync(path.join(this.dir, key), '');
    });
  }

  close(): void {
    this.watch.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
