/** The inverted index of a KB's triggers: notes by each thing a tool call can share with them. Pure. */
import type { NoteTriggers } from './triggers.js';

export interface TriggerIndex {
  notes: readonly NoteTriggers[];
  /**
   * The notes before this one are those the KB gives; the rest are retired notes, indexed only so a
   * call in their words finds their successor. How many notes share a clue counts the first only: a
   * KB keeping old versions of a memory makes no clue of a live note commoner (dfOf).
   */
  live: number;
  byStem: Map<string, number[]>;
  byPair: Map<string, number[]>;
  byCompound: Map<string, number[]>;
  byProgram: Map<string, number[]>;
  /** Notes by the adjacent words of what they are about, as written (a command named in prose). */
  byWordPair: Map<string, number[]>;
  /** Notes with path globs (checked for every call that touches a file). */
  withGlobs: number[];
  /** Notes by the names they write in capitals (`PATH`): a variable a call uses. */
  byVariable: Map<string, number[]>;
  /** Notes by the file types they write as files (`plist`). */
  byType: Map<string, number[]>;
  /** Notes named for a git step (`commit-message-format`, "Rebase rules"): by the step's stem. */
  byGitStep: Map<string, number[]>;
  /** Rule notes named for a kind of work (`go-error-wrapping`: error), by the kind. */
  byWork: Map<string, number[]>;
  /** Notes by the values they pin (`2024-06-20`). */
  byValue: Map<string, number[]>;
}

function add(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [i]);
  else if (list[list.length - 1] !== i) list.push(i);
}

/** How many notes the KB gives share a clue (`hits`: a sorted list of the index's notes), at least 1. */
export function dfOf(hits: readonly number[], live: number): number {
  let n = 0;
  for (const i of hits) if (i < live) n += 1;
  return Math.max(1, n);
}

/**
 * The inverted index of a KB's triggers (built once per index generation by the caller); the notes
 * from `live` on are retired ones (TriggerIndex.live).
 */
export function buildTriggerIndex(notes: readonly NoteTriggers[], live = notes.length): TriggerIndex {
  const idx: TriggerIndex = {
    notes,
    live,
    byStem: new Map(),
    byPair: new Map(),
    byCompound: new Map(),
    byProgram: new Map(),
    byWordPair: new Map(),
    withGlobs: [],
    byVariable: new Map(),
    byType: new Map(),
    byGitStep: new Map(),
    byWork: new Map(),
    byValue: new Map(),
  };
  notes.forEach((n, i) => {
    for (const s of n.stems) add(idx.byStem, s, i);
    for (const p of n.pairs) add(idx.byPair, p, i);
    for (const c of n.compounds) add(idx.byCompound, c, i);
    for (const w of n.wordPairs) add(idx.byWordPair, w, i);
    for (const v of n.variables) add(idx.byVariable, v, i);
    for (const t of n.fileTypes) add(idx.byType, t, i);
    for (const p of [...n.phrases, ...n.commands]) for (const alt of p.words[0]!) add(idx.byProgram, alt, i);
    for (const c of n.applyCommands) add(idx.byProgram, c[0]!, i);
    for (const s of n.gitSteps) add(idx.byGitStep, s, i);
    for (const k of n.work?.kinds ?? []) add(idx.byWork, k, i);
    for (const v of n.values) add(idx.byValue, v, i);
    if (n.globs.length > 0 || n.placeGlobs.length > 0) idx.withGlobs.push(i);
  });
  return idx;
}
