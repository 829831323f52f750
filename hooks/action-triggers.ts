/**
 * The tool-call hook's trigger index per KB, kept in this process: the recall server builds it once
 * per index version and answers every later call of that version from memory.
 *
 * Deriving triggers costs about 0.2 ms a note, so a 10,000-note KB takes seconds: the build runs in
 * slices that yield to the event loop (other requests of the server go on, and a hook's deadline
 * still fires), it goes on when the hook that started it has answered (the next call finds it
 * ready), and one build per version runs at a time. A note's triggers are kept by its key and
 * content hash, so a KB that changed recomputes only the notes that changed; and they are kept on
 * disk next to the KB's index (action-trigger-store.ts), so a process that starts cold reads them.
 */
import { statedReplacements, type Note } from '../core/note/index.js';
import { errorMessage } from '../core/errors.js';
import { buildTriggerIndex, noteTriggers, type NoteTriggers, type TriggerIndex } from '../operators/action/index.js';
import type { NoteSet } from '../pipeline/run.js';
import { triggerFileOf, type StoredEntry } from './action-trigger-store.js';
import { OWN_BUILD, addPart, dropFile, isCurrent, readOnce, writeWhole } from './action-trigger-file.js';

/** A KB's triggers, and its notes by id (what the hook renders). */
export interface KbTriggers {
  index: TriggerIndex;
  notes: Map<string, Note>;
  /**
   * Memories a newer memory of the same folder says in words are gone ("Horizon replaced the
   * per-server queue workers"), older id → newer id: read over the whole KB, as a call may reach the
   * older one only. (The prompt hook reads the same pairs among a recall's candidates.) And the notes
   * retired by a successor (NoteSet.retired), which are indexed for this only.
   */
  replacedBy: Map<string, string>;
}

/** Indexes kept (several KBs, and an index that moved on while an old version was still asked for). */
const READY_MAX = 8;
/** Notes' triggers kept across versions (bounded: a server reading many KBs must not grow without limit). */
const MEMO_MAX = 100_000;
/** Memories read for replacements stated in words (a memory folder holds a few hundred at most). */
const MAX_MEMORIES = 2000;
/**
 * Work done between two yields to the event loop, in ms: short, so that the recall server accepts
 * other calls while it builds and a hook's deadline timer fires on time.
 */
const SLICE_MS = 25;

const READY = new Map<string, KbTriggers>();
const BUILDING = new Map<string, Promise<KbTriggers>>();
const MEMO = new Map<string, NoteTriggers>();
const idOf = (n: Note): string => (n.displayId !== '?' ? n.displayId : n.key);
const memoKeyOf = (n: Note): string => `${n.key}\0${n.contentHash}`;
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function remember(memoKey: string, t: NoteTriggers): void {
  if (MEMO.size >= MEMO_MAX) MEMO.clear();
  MEMO.set(memoKey, t);
}

/**
 * Most notes a process that ends with its call reads for the tool-call hook. Reading a KB's notes
 * from its index is one blocking step (about 0.06 ms a note), and decoding their stored triggers
 * about 0.13 ms a note: 10,000 notes take close to 2 s, the whole deadline, before the first match.
 * A larger KB is matched by the recall server only.
 */
export const IN_PROCESS_MAX_NOTES = 3000;

/** A build stopped at its caller's stop time (a process that ends with its call), with how far it got. */
export class TriggersLate extends Error {
  constructor(done: number, total: number, why = 'ready by the deadline') {
    super(`triggers of ${done} of ${total} notes ${why}; this KB gives the call nothing`);
    this.name = 'TriggersLate';
  }
}

/**
 * A build's pace: it yields to the event loop once SLICE_MS of work went by, and stops (TriggersLate,
 * with `progress()`) at the first note or frame once the stop time passed.
 */
function slicer(stop: BuildOptions['stop'], progress: () => [number, number]): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (stop && (stop.now ?? Date.now)() >= stop.at) throw new TriggersLate(...progress());
    if (performance.now() - since < SLICE_MS) return;
    await yieldToLoop();
    since = performance.now();
  };
}

/**
 * The KB's triggers: read from its trigger file and MEMO, the rest derived, in slices of SLICE_MS.
 * With a stop time, stopped there (TriggersLate); without, carried on to the end however long the
 * calls waiting for it wait. What was derived is then written to the trigger file: after the
 * triggers are given, in the recall server; before, within the stop time, elsewhere.
 */
async function build(set: NoteSet, { warn = () => {}, stamp = OWN_BUILD, stop }: BuildOptions): Promise<KbTriggers> {
  const notes = set.notes();
  const retired = set.retired?.() ?? [];
  const file = set.indexFile && stamp ? triggerFileOf(set.indexFile) : null;
  const byId = new Map<string, Note>();
  const triggers: NoteTriggers[] = [];
  const fresh: StoredEntry[] = [];
  const successorOf = retiredSuccessors(notes, retired);
  const all = [...notes, ...retired.map((r) => r.note).filter((n) => successorOf.has(n.key))];
  const tick = slicer(stop, () => [triggers.length, all.length]);
  try {
    if (file && stamp) await readOnce(file, stamp, remember, tick, warn);
    for (const n of all) {
      await tick();
      const id = idOf(n);
      let t = MEMO.get(memoKeyOf(n));
      if (!t || t.id !== id) {
        t = noteTriggers(n, id);
        fresh.push([memoKeyOf(n), t]);
        remember(memoKeyOf(n), t);
      }
      byId.set(id, n);
      triggers.push(successorOf.has(n.key) ? asRetired(t) : t);
    }
  } catch (err) {
    // Stopped: what this call derived is added to the file, so the next call goes on from there.
    if (file && stamp) addPart(file, stamp, fresh, warn);
    throw err;
  }
  // Written when something was derived or the file did not hold them (missing, unreadable, of
  // another build): its notes are then those of this KB now. After the triggers are given, in the
  // recall server; before, within the stop time, elsewhere.
  if (file && stamp && (fresh.length > 0 || !isCurrent(file))) {
    const entries = all.flatMap((n): StoredEntry[] => (MEMO.has(memoKeyOf(n)) ? [[memoKeyOf(n), MEMO.get(memoKeyOf(n))!]] : []));
    const writing = writeWhole(file, stamp, entries, tick, warn);
    if (stop) await writing;
  }
  const idByKey = new Map(all.map((n) => [n.key, idOf(n)]));
  const replacedBy = new Map<string, string>();
  for (const [older, newer] of statedReplacements(notes.filter((n) => n.memoryType).slice(0, MAX_MEMORIES)))
    replacedBy.set(idByKey.get(older)!, idByKey.get(newer)!);
  for (const [older, newer] of successorOf) replacedBy.set(idByKey.get(older)!, idByKey.get(newer)!);
  // The retired notes come last: how many notes share a clue counts the live ones only (TriggerIndex.live).
  try {
    return { index: buildTriggerIndex(triggers, notes.length), notes: byId, replacedBy };
  } catch (err) {
    forgetTriggers(set);
    throw new Error(`triggers failed (${errorMessage(err)}); derived again next time`, { cause: err });
  }
}

/**
 * A retired note's triggers with nothing of it followed: its advice is no longer the advice, so a call
 * that writes what it recommended (`Flipper.enable_actor(...)` in a production console, where the
 * successor says toggles now live elsewhere) does what was retired. That is evidence for the
 * successor, which takes it (action-successions.ts), not a call that needs no reminder.
 */
function asRetired(t: NoteTriggers): NoteTriggers {
  return { ...t, followTokens: new Set(), followSettings: new Set() };
}

/**
 * The retired notes whose line of successors ends at a note the KB gives, older key → its successor's
 * key. Such a note is indexed, never given: a call that does what it said gets what replaced it
 * (action-successions.ts), as a prompt about it gets its successor (operators/lift-successors.ts). One
 * whose successors end nowhere (a loop, a missing note) is left out: it has nothing to give way to.
 */
function retiredSuccessors(notes: readonly Note[], retired: readonly { note: Note; by: string }[]): Map<string, string> {
  const givable = new Set(notes.map((n) => n.key));
  const next = new Map(retired.map((r) => [r.note.key, r.by]));
  const out = new Map<string, string>();
  for (const r of retired) {
    let at = r.by;
    for (let k = 0; k < retired.length && !givable.has(at) && next.has(at); k += 1) at = next.get(at)!;
    if (givable.has(at)) out.set(r.note.key, r.by);
  }
  return out;
}

export interface BuildOptions {
  /** Told what could not be read or kept on disk. */
  warn?: (line: string) => void;
  /** The build a trigger file is read for and written by (default: this one, OWN_BUILD; null: none kept). */
  stamp?: string | null;
  /**
   * When a process that ends with its call needs the triggers by (epoch ms, on `now`'s clock): the
   * build stops there and rejects with TriggersLate. Such a build is not shared with other calls.
   */
  stop?: { at: number; now?: () => number };
}

/**
 * The triggers of a KB's notes at this index version: from memory, from a build under way, or
 * built now (from the KB's trigger file where it holds them). The notes are read at once (the
 * session is open now, maybe not later).
 */
export function kbTriggers(set: NoteSet, o: BuildOptions = {}): Promise<KbTriggers> {
  const v = set.version;
  const ready = v ? READY.get(v) : undefined;
  if (ready) return Promise.resolve(ready);
  const under = v && !o.stop ? BUILDING.get(v) : undefined;
  if (under) return under;
  const made = build(set, o);
  if (!v || o.stop) return made.then((kb) => (v ? keepReady(v, kb) : kb));
  BUILDING.set(v, made);
  void made.then(
    (kb) => {
      BUILDING.delete(v);
      keepReady(v, kb);
    },
    () => BUILDING.delete(v),
  );
  return made;
}

/**
 * Forget what this process holds of a KB whose triggers failed at use (a damaged trigger file can
 * hold entries of the right kinds and wrong contents): its index, its notes' triggers, and its file,
 * so the next call derives them again.
 */
export function forgetTriggers(set: NoteSet): void {
  if (set.version) READY.delete(set.version);
  try {
    for (const n of set.notes()) MEMO.delete(memoKeyOf(n));
  } catch {
    MEMO.clear();
  }
  if (set.indexFile) dropFile(triggerFileOf(set.indexFile));
}

function keepReady(v: string, kb: KbTriggers): KbTriggers {
  if (READY.size >= READY_MAX) READY.delete(READY.keys().next().value!);
  READY.set(v, kb);
  return kb;
}
