/**
 * What a team push sends: from the KB's notes (metadata only) and what the store already holds from
 * this KB, which notes to publish and which to retire in the store. Pure decisions, no I/O but the
 * index reads of kbEntries.
 */
import type { Note } from '../../core/note/index.js';
import { type IndexHandle, fileMtimesOutside, notesOutside, supersedeLinksOutside } from '../../sources/index/index.js';
import { TEAM_PREFIX, type RetireItem } from '../../sources/team/index.js';

/** `share: team` (or a list holding `team`) shares a note; `share: private|none|false|no` keeps it home even when the KB shares all. */
export function shareMark(note: Pick<Note, 'frontmatter'>): 'team' | 'private' | null {
  const v = note.frontmatter['share'];
  const values = (Array.isArray(v) ? v : [v]).map((x) =>
    String(x ?? '')
      .trim()
      .toLowerCase(),
  );
  if (values.includes('team')) return 'team';
  if (values.some((x) => ['private', 'none', 'false', 'no'].includes(x))) return 'private';
  return null;
}

/** A note is followed across edits by its `id:` (or `name:`); a note without one has no stable identity. */
const hasOwnId = (note: Pick<Note, 'displayId'>): boolean => note.displayId !== '?';

/** What a push needs to decide about a note, without its text (a large KB is not held in memory whole). */
export interface KbEntry {
  key: string;
  displayId: string;
  path: string;
  location: Note['location'];
  contentHash: string;
  supersededBy: string | null;
  status: string;
  share: 'team' | 'private' | null;
}

export interface KbEntries {
  entries: KbEntry[];
  mtimes: Map<string, number>;
  /** Superseded key → the key of the note that supersedes it (the first declared). */
  supersedes: Map<string, string>;
}

/** The KB's own notes from its index (the attached team shard excluded), read row by row. */
export function kbEntries(index: IndexHandle): KbEntries {
  const entries: KbEntry[] = [];
  for (const n of notesOutside(index, TEAM_PREFIX)) {
    entries.push({
      key: n.key,
      displayId: n.displayId,
      path: n.path,
      location: n.location,
      contentHash: n.contentHash,
      supersededBy: n.supersededBy,
      status: n.status,
      share: shareMark(n),
    });
  }
  const supersedes = new Map<string, string>();
  for (const r of supersedeLinksOutside(index, TEAM_PREFIX)) {
    if (r.target !== r.byKey && !supersedes.has(r.target)) supersedes.set(r.target, r.byKey);
  }
  return { entries, mtimes: fileMtimesOutside(index, TEAM_PREFIX), supersedes };
}

/** What the store holds from this KB: the ids pushed before (with their content hash) and this machine's heads. */
export interface PushHistory {
  /** Ids this KB has published, with the content hash last pushed. */
  pushed: Readonly<Record<string, string>>;
  /** The store's heads published from this KB: id → 'current' or a retired state. */
  fromHere: ReadonlyMap<string, string>;
}

export interface PushPlan {
  /** Notes to send (their text is read from the index batch by batch). */
  items: { entry: KbEntry; path: string }[];
  retires: RetireItem[];
  shared: number;
  /** Shared notes the store already holds as this machine's latest, with this very content. */
  unchanged: number;
  skipped: { path: string; reason: string }[];
}

type Retired = { state: 'superseded' | 'forgotten'; by: string | null };

/** Why a live note counts as retired (superseded, archived, or a retired copy elsewhere in the KB), or null. */
function retiredState(
  n: KbEntry,
  supersedes: ReadonlyMap<string, string>,
  retiredCopies: ReadonlyMap<string, Retired['state']>,
): Retired | null {
  if (n.supersededBy) return { state: 'superseded', by: n.supersededBy };
  if (n.status === 'superseded' || n.status === 'archived') return { state: 'superseded', by: null };
  if (supersedes.has(n.key)) return { state: 'superseded', by: supersedes.get(n.key)! };
  if (retiredCopies.has(n.key)) return { state: retiredCopies.get(n.key)!, by: null };
  return null;
}

const NO_ID_REASON = 'shared note without an `id:` (or `name:`) in its frontmatter; add one so edits and retirements can follow it';

/** The decision for each live note: publish, leave unchanged, retire, withdraw or skip. */
function planLive(
  kb: KbEntries,
  live: KbEntry[],
  retiredCopies: Map<string, Retired['state']>,
  shareAll: boolean,
  history: PushHistory,
): PushPlan & { sharedIds: Set<string> } {
  const known = (id: string): boolean => id in history.pushed || history.fromHere.has(id);
  const plan: PushPlan & { sharedIds: Set<string> } = {
    items: [],
    retires: [],
    shared: 0,
    unchanged: 0,
    skipped: [],
    sharedIds: new Set(),
  };
  for (const n of live) {
    const isShared = n.share === 'team' || (shareAll && n.share !== 'private');
    const retiredBy = retiredState(n, kb.supersedes, retiredCopies);
    if (retiredBy) {
      if (known(n.key) || isShared) plan.retires.push({ id: n.key, state: retiredBy.state, supersededBy: retiredBy.by });
    } else if (!isShared) {
      // No longer shared (or never was): withdraw what this KB published before.
      if (known(n.key)) plan.retires.push({ id: n.key, state: 'forgotten', supersededBy: null });
    } else if (!hasOwnId(n)) {
      plan.skipped.push({ path: n.path, reason: NO_ID_REASON });
    } else {
      plan.shared += 1;
      plan.sharedIds.add(n.key);
      // Pushed before with this very content and still this machine's latest in the store: nothing to send.
      if (history.pushed[n.key] === n.contentHash && history.fromHere.get(n.key) === 'current') plan.unchanged += 1;
      else plan.items.push({ path: n.path, entry: n });
    }
  }
  return plan;
}

/** The whole push: each live note's decision, then retirements of what this KB published and no longer holds live. */
export function planPush(kb: KbEntries, shareAll: boolean, history: PushHistory): PushPlan {
  const known = (id: string): boolean => id in history.pushed || history.fromHere.has(id);
  const live = kb.entries.filter((n) => n.location === 'documents');
  const liveKeys = new Set(live.map((n) => n.key));
  const retiredCopies = new Map<string, Retired['state']>();
  for (const n of kb.entries)
    if (n.location !== 'documents') retiredCopies.set(n.key, n.location === 'forgotten' ? 'forgotten' : 'superseded');
  const { sharedIds, ...plan } = planLive(kb, live, retiredCopies, shareAll, history);
  // Retired copies (archived/, documents/.forgotten/) of notes this KB published, and published notes gone from the KB.
  for (const [key, state] of retiredCopies) if (!liveKeys.has(key) && known(key)) plan.retires.push({ id: key, state, supersededBy: null });
  const present = new Set([...liveKeys, ...retiredCopies.keys()]);
  for (const id of new Set([...Object.keys(history.pushed), ...history.fromHere.keys()]))
    if (!present.has(id)) plan.retires.push({ id, state: 'forgotten', supersededBy: null });
  // A shared note that declares `supersedes:` a note published elsewhere retires that note too.
  for (const [target, by] of kb.supersedes)
    if (!present.has(target) && sharedIds.has(by)) plan.retires.push({ id: target, state: 'superseded', supersededBy: by });
  return plan;
}
