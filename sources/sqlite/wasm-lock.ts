/**
 * Locks of the wasm driver: node-sqlite3-wasm locks a database with a `<file>.lock` directory,
 * which a process killed inside a transaction leaves behind. These helpers tell an abandoned lock
 * from a live one and keep a live one looking alive.
 */
import fs from 'node:fs';

/**
 * A node-sqlite3-wasm lock is a `<file>.lock` directory. A process killed inside a transaction
 * leaves it behind and every later open would wait and fail, so a lock older than this is taken
 * as abandoned. A live transaction refreshes its lock's time every WASM_LOCK_HEARTBEAT_MS, so only
 * a dead one ever gets this old.
 */
export const STALE_WASM_LOCK_MS = 30_000;
export const WASM_LOCK_HEARTBEAT_MS = 5_000;

/** Remove a lock directory left by a process that died inside a transaction (see STALE_WASM_LOCK_MS). */
export function clearStaleWasmLock(file: string, now = Date.now()): void {
  const lock = `${file}.lock`;
  try {
    const st = fs.statSync(lock);
    if (now - st.mtimeMs > STALE_WASM_LOCK_MS || ownerDied(file, st)) {
      fs.rmdirSync(lock);
      fs.rmSync(lockOwnerFile(file), { force: true });
    }
  } catch {
    /* no lock, or another process just took it over */
  }
}

/**
 * `<file>.lock-owner`: "pid inode" of the process holding the lock directory for a write
 * transaction, written once the transaction holds the lock and removed when it ends. A process
 * killed outright (SIGKILL) inside a transaction leaves both behind; its lock is then taken over at
 * once instead of after STALE_WASM_LOCK_MS. A lock without this record (a reader's statement, a
 * deferred transaction) only ever goes stale by age.
 */
export const lockOwnerFile = (file: string): string => `${file}.lock-owner`;

/**
 * Whether the lock directory `st` was taken by a write transaction whose process is gone: the
 * record names this very directory (same inode, and the directory is not newer than the record,
 * since a live holder refreshes both together) and its pid no longer exists.
 */
function ownerDied(file: string, st: fs.Stats): boolean {
  try {
    const owner = lockOwnerFile(file);
    const [pidText, inoText] = fs.readFileSync(owner, 'utf8').split(' ');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || String(st.ino) !== inoText) return false;
    if (st.mtimeMs > fs.statSync(owner).mtimeMs) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    return false;
  }
}

/**
 * The default action of SIGINT/SIGTERM kills the process at once, even inside a synchronous
 * transaction, which would leave the lock directory behind. With a listener installed the signal
 * waits for the running JavaScript (the whole transaction) to finish, then kills the process the
 * way the signal intends. Installed on the first write transaction of a wasm connection.
 */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let signalsDeferred = false;

function onSignal(signal: NodeJS.Signals): void {
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

export function deferSignals(): void {
  if (signalsDeferred) return;
  signalsDeferred = true;
  for (const s of SIGNALS) if (process.listenerCount(s) === 0) process.on(s, onSignal);
}

/**
 * The lock side of one wasm connection's write transactions: records this process as the owner
 * of the lock directory (see lockOwnerFile), refreshes its time while a long transaction runs
 * (see STALE_WASM_LOCK_MS), and removes the record when the transaction ends.
 */
export class WasmLockKeeper {
  private lastBeat = 0;
  private claimed = false;

  constructor(
    private readonly file: string,
    private readonly inTransaction: () => boolean,
  ) {}

  /** Keep a long transaction's lock looking alive to other processes. */
  heartbeat(): void {
    if (!this.inTransaction() || this.file === ':memory:') return;
    const now = Date.now();
    if (now - this.lastBeat < WASM_LOCK_HEARTBEAT_MS) return;
    this.lastBeat = now;
    try {
      // The owner record first: a lock directory never looks newer than its record.
      if (this.claimed) fs.utimesSync(lockOwnerFile(this.file), now / 1000, now / 1000);
      fs.utimesSync(`${this.file}.lock`, now / 1000, now / 1000);
    } catch {
      /* no lock directory (yet): nothing to refresh */
    }
  }

  /** A write transaction began: defer signals, refresh the lock and record its owner. */
  begin(): void {
    deferSignals();
    this.lastBeat = 0;
    this.heartbeat();
    this.claim();
  }

  end(): void {
    if (!this.claimed) return;
    this.claimed = false;
    try {
      if (fs.readFileSync(lockOwnerFile(this.file), 'utf8').split(' ')[0] === String(process.pid))
        fs.rmSync(lockOwnerFile(this.file), { force: true });
    } catch {
      /* already gone */
    }
  }

  /** The write transaction's lock, recorded with this pid (see lockOwnerFile). */
  private claim(): void {
    if (this.file === ':memory:') return;
    try {
      const st = fs.statSync(`${this.file}.lock`);
      fs.writeFileSync(lockOwnerFile(this.file), `${process.pid} ${st.ino}`, { mode: 0o600 });
      // One explicit time on both (a file's own write time may come from a coarser clock).
      const t = Date.now() / 1000;
      fs.utimesSync(lockOwnerFile(this.file), t, t);
      fs.utimesSync(`${this.file}.lock`, t, t);
      this.claimed = true;
    } catch {
      /* no lock directory yet (a deferred transaction): only age frees it */
    }
  }
}
