/**
 * Maximal marginal relevance selection: the result list trades relevance against repeating what it already holds. Pure.
 *
 * Keep the top item, then repeatedly pick argmax(λ·rel − (1−λ)·max cosine to the picked ones).
 * rel is the rank score divided by the head's best (cosine to the query when scores are all zero).
 * Items without a vector only fill slots left over, in order. No vectors at all → plain slice.
 */
import { numberDefault } from '../../core/settings/index.js';

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}

export interface MmrItem {
  key: string;
  score: number;
}

/** Default trade-off: mostly relevance, some diversity (RECALL_MMR_LAMBDA's default in the settings list). */
export const MMR_LAMBDA = numberDefault('RECALL_MMR_LAMBDA');

/**
 * @param items ranked best first
 * @param vectors note vectors by key (unit-normalised or not)
 * @param queryVector used for rel only when every head score is 0
 * @returns the selected items, at most k, in pick order
 */
export function mmrSelect<T extends MmrItem>(
  items: readonly T[],
  k: number,
  vectors: ReadonlyMap<string, readonly number[]> | null,
  queryVector: readonly number[] | null,
  lambda = MMR_LAMBDA,
): T[] {
  const lam = Math.min(1, Math.max(0, Number.isFinite(lambda) ? lambda : MMR_LAMBDA));
  if (k <= 0 || items.length === 0) return [];
  if (!vectors || items.length <= 1 || !vectors.has(items[0]!.key)) return items.slice(0, k);
  const head = items.filter((it) => vectors.has(it.key));
  const tail = items.filter((it) => !vectors.has(it.key));
  const maxScore = Math.max(...head.map((h) => h.score));
  const rel = (it: T): number => {
    if (maxScore > 0) return it.score / maxScore;
    return queryVector ? cosine(queryVector, vectors.get(it.key)!) : 0;
  };
  const picked: T[] = [head[0]!];
  const rest = head.slice(1);
  while (picked.length < k && rest.length > 0) {
    let bestIdx = 0;
    let best = -Infinity;
    rest.forEach((cand, i) => {
      const v = vectors.get(cand.key)!;
      let maxSim = -Infinity;
      for (const p of picked) maxSim = Math.max(maxSim, cosine(v, vectors.get(p.key)!));
      const value = lam * rel(cand) - (1 - lam) * maxSim;
      if (value > best) {
        best = value;
        bestIdx = i;
      }
    });
    picked.push(rest.splice(bestIdx, 1)[0]!);
  }
  for (const t of tail) {
    if (picked.length >= k) break;
    picked.push(t);
  }
  return picked;
}
