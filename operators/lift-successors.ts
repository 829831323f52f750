/**
 * Successions among the candidates: a note that another live note of the KB supersedes (frontmatter
 * `supersedes: <id>`, or a `supersedes` relationship of the entity graph from an entity of the newer
 * note to an entity of the older one, or a memory that says in words what of the older one is gone:
 * core/note statedReplacements) is outdated advice. When the older note is relevant to the
 * query, its replacement answers the same question with the current advice, whatever words it
 * shares with the query ("should I mint RS256 tokens?" → "server-side sessions replace JWT").
 *
 * - liftSuccessors (relevance stage, after the entity-link lift): the newer note gets the older
 *   one's relevance and ranking form when its own are lower (source 'successor'), and records the
 *   notes it supersedes (RelevanceEstimate.succeeds). Along a chain only the newest note, which no
 *   candidate supersedes, is lifted.
 * - rankSuccessors (score stage): a successor scores at least as high as each note it supersedes
 *   and sorts above it on a tie, also when the cross-encoder's probability is its base.
 *
 * Only successions between candidates count: a replacement no arm retrieved is not fetched here.
 * A failing lookup is recorded as a degradation and lifts nothing.
 */
import type { RelevanceEstimate } from '../core/state.js';
import type { Candidate, Degradation, ScoredCandidate } from '../core/types.js';
import { statedReplacements } from '../core/note/index.js';

/** For the given note paths: older path → paths of the given notes that supersede it; may throw. */
export type SuccessorsPort = (paths: readonly string[]) => ReadonlyMap<string, ReadonlySet<string>>;

const rankingOf = (e: RelevanceEstimate): number => e.ranking ?? e.p;

/** Lifts each candidate that supersedes another candidate to at least that one's relevance (one lookup). */
export function liftSuccessors(
  relevance: Map<string, RelevanceEstimate>,
  candidates: readonly Candidate[],
  successors: SuccessorsPort,
  degraded: Degradation[],
): void {
  let pairs: [older: string, newer: string][];
  try {
    const keyOf = new Map(candidates.map((c) => [c.note.path, c.note.key]));
    // Every candidate, not only the scoring window: a replacement the arms ranked low is the one
    // that most needs its predecessor's relevance.
    const found = successors(candidates.map((c) => c.note.path));
    pairs = [...found].flatMap(([older, newers]) =>
      [...newers].flatMap((n): [string, string][] => {
        const [o, k] = [keyOf.get(older), keyOf.get(n)];
        return o !== undefined && k !== undefined && o !== k ? [[o, k]] : [];
      }),
    );
  } catch (err) {
    degraded.push({ stage: 'relevance', reason: 'error', message: `successor lookup unavailable: ${(err as Error).message}` });
    return;
  }
  // A memory that says in words what of an older one is gone (core/note: statedReplacements).
  const known = new Set(pairs.map(([o, n]) => `${o}\0${n}`));
  for (const [o, n] of statedReplacements(candidates.map((c) => c.note))) if (!known.has(`${o}\0${n}`)) pairs.push([o, n]);
  for (const [older, newer] of pairs) {
    const e = relevance.get(newer);
    if (e && !e.succeeds?.includes(older)) relevance.set(newer, { ...e, succeeds: [...(e.succeeds ?? []), older] });
  }
  const own = new Map(relevance);
  // A chain (A superseded by B, B by C) passes A's relevance on to C: repeat while anything rises,
  // at most once per pair (a cycle stops, and lifts none of its members: each is superseded).
  for (let pass = 0; pass <= pairs.length; pass += 1) {
    let rose = false;
    for (const [older, newer] of pairs) {
      const o = relevance.get(older);
      const n = relevance.get(newer);
      if (!o || !n || (o.p <= n.p && rankingOf(o) <= rankingOf(n))) continue;
      // Relevance a link lent the older note stays lent: the newer one is no surer than a linked note.
      const source = o.p > n.p && o.source === 'linked' ? 'linked' : 'successor';
      relevance.set(newer, { ...n, p: Math.max(o.p, n.p), ranking: Math.max(rankingOf(o), rankingOf(n)), source });
      rose = true;
    }
    if (!rose) break;
  }
  // A note that another candidate supersedes is outdated itself: it passes its predecessor's
  // relevance on to its replacement but keeps its own. Lifting every link of a chain (v0 → v1 → … →
  // v9, the query about v0) filled the prompt hook with v9, v8 and v7, two of them retired advice.
  for (const [older] of pairs) {
    const e = own.get(older);
    if (e) relevance.set(older, e);
  }
}

/**
 * Sorts scored candidates by score, a successor raised to the best score among the notes it
 * supersedes and placed above them on a tie. The score's other factors (the cross-encoder's
 * probability, the boosts) can still favour the older note; its replacement must not show below it.
 */
export function rankSuccessors(scored: ScoredCandidate[], relevance: ReadonlyMap<string, RelevanceEstimate>): ScoredCandidate[] {
  const score = new Map<string, number>();
  for (const c of scored) if (!score.has(c.note.key)) score.set(c.note.key, c.score);
  const links = [...score.keys()].flatMap((k) =>
    (relevance.get(k)?.succeeds ?? []).filter((o) => score.has(o)).map((o) => [o, k] as const),
  );
  if (!links.length) return scored.sort((a, b) => b.score - a.score);
  // How many successions lead to a note: the newest of a chain sorts first among equal scores.
  const depth = new Map<string, number>();
  for (let pass = 0; pass <= links.length; pass += 1) {
    let changed = false;
    for (const [older, newer] of links) {
      const d = (depth.get(older) ?? 0) + 1;
      if (score.get(older)! > score.get(newer)! || d > (depth.get(newer) ?? 0)) {
        score.set(newer, Math.max(score.get(older)!, score.get(newer)!));
        depth.set(newer, Math.max(d, depth.get(newer) ?? 0));
        changed = true;
      }
    }
    if (!changed) break;
  }
  const rank = (c: ScoredCandidate): [number, number] => [score.get(c.note.key)!, depth.get(c.note.key) ?? 0];
  const out = scored.map((c) => (rank(c)[0] > c.score ? { ...c, score: rank(c)[0] } : c));
  return out.sort((a, b) => rank(b)[0] - rank(a)[0] || rank(b)[1] - rank(a)[1]);
}
