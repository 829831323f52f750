/**
 * Positions of word sets, for reading a large memory folder without comparing every pair of
 * memories (memory.ts statedReplacements). Pure.
 */

/** Lists merged by scanning their heads; past this many, gathering and sorting them costs less. */
const MERGED_LISTS = 8;

/**
 * The numbers of ascending lists, merged in ascending order, each once: lazily for a few lists (a
 * reader that stops early reads little), gathered and sorted for many (scanning every list's head
 * for each number would cost numbers × lists).
 */
export function* ascending(lists: readonly (readonly number[])[]): Generator<number> {
  if (lists.length > MERGED_LISTS) {
    yield* [...new Set(lists.flat())].sort((a, b) => a - b);
    return;
  }
  const at = lists.map(() => 0);
  let last = -1;
  for (;;) {
    let best = -1;
    for (let j = 0; j < lists.length; j += 1)
      if (at[j]! < lists[j]!.length && (best < 0 || lists[j]![at[j]!]! < lists[best]![at[best]!]!)) best = j;
    if (best < 0) return;
    const v = lists[best]![at[best]!]!;
    at[best]! += 1;
    if (v !== last) yield v;
    last = v;
  }
}

/** Where each word is, by the position of the sets that hold it. */
export function wordIndex(sets: readonly ReadonlySet<string>[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  sets.forEach((ws, k) => {
    for (const w of ws) {
      const at = out.get(w);
      if (at) at.push(k);
      else out.set(w, [k]);
    }
  });
  return out;
}
