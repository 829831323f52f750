/**
 * Reciprocal rank fusion. Pure.
 *
 * score(doc) = Σ over arms of 1 / (k + rank), rank 1-based within each arm's list. Documents are
 * matched by key; the first-seen object is kept (arm order as given); output is sorted by score
 * descending and stable (ties keep first-seen order).
 */

/** The usual RRF constant (Cormack et al. 2009): damps the head so one arm's #1 cannot dominate. */
export const RRF_K = 60;

export interface RankedList<T> {
  arm: string;
  items: readonly T[];
}

export interface Fused<T> {
  item: T;
  key: string;
  score: number;
  /** Arms that returned the item, in arm order, with the item's 1-based rank in each. */
  ranks: Record<string, number>;
}

export function reciprocalRankFusion<T>(lists: readonly RankedList<T>[], keyOf: (item: T) => string, k = RRF_K): Fused<T>[] {
  const byKey = new Map<string, Fused<T>>();
  for (const { arm, items } of lists) {
    items.forEach((item, i) => {
      const key = keyOf(item);
      let entry = byKey.get(key);
      if (!entry) {
        entry = { item, key, score: 0, ranks: {} };
        byKey.set(key, entry);
      }
      // A key repeated within one list counts once, at its best rank.
      if (entry.ranks[arm] !== undefined) return;
      entry.ranks[arm] = i + 1;
      entry.score += 1 / (k + i + 1);
    });
  }
  // Array.prototype.sort is stable, so ties keep insertion (first-seen) order.
  return [...byKey.values()].sort((a, b) => b.score - a.score);
}
