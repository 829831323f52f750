/**
 * The graph search of the embedded index: notes one entity hop away from what the query names
 * (the graph arm, sources/arms/graph.ts, runs it here or on the index's worker threads).
 *
 * 1. Starting entities: the query's terms matched (BM25 over the entity index: name words, aliases,
 *    description) — each one's activation is its score over the best one's, those below
 *    START_MIN_ACTIVATION dropped, and so are entities the query touches by a single description word
 *    ("service" alone does not name "macOS service manager"): a starting entity needs a name/alias
 *    word or two description words.
 * 2. One hop along relationships in either direction: activation × type weight × strength/10 ×
 *    HOP_DECAY; edges whose validity ended (tvalid_end in the past) or that were superseded are skipped.
 * 3. Notes that mention a reached entity score Σ activation × specificity (1/log2(1 + notes naming
 *    the entity)); a hub entity (see HUB_MIN_NOTES) only adds to notes reached through a specific
 *    one. Paths are scored first and only the winners are loaded.
 * No entity matched → no hits. Only live notes are returned.
 */
import type { IndexHandle } from './handle.js';
import { countNotes, notesByKeys, notesByPaths } from './lookups.js';
import { ftsQuery } from './fts-query.js';
import type { SqlStatement } from '../sqlite/index.js';
import type { ArmHit } from '../../core/types.js';

/** How much a hop along each relationship type carries (causal links lead to root causes and fixes). */
export const EDGE_TYPE_WEIGHT: Readonly<Record<string, number>> = {
  caused_by: 1,
  causes: 1,
  prevents: 0.9,
  enables: 0.9,
  solves: 0.9,
  part_of: 0.7,
  uses: 0.7,
  requires: 0.7,
  implements: 0.7,
  configures: 0.7,
  triggers: 0.8,
  contradicts: 0.6,
  supersedes: 0.5,
  relates_to: 0.5,
};
/** Weight of a relationship type not in the table. */
const UNKNOWN_EDGE_WEIGHT = 0.5;
/** A hop is worth at most this fraction of the entity it starts from. */
export const HOP_DECAY = 0.6;
/** Starting entities weaker than this fraction of the best one are noise (one shared generic word). */
export const START_MIN_ACTIVATION = 0.25;
/** An entity named by more notes than max(HUB_MIN_NOTES, HUB_FRACTION × live notes) is a hub: it only
 * adds to notes reached through a more specific entity (a shared "postgres" says little on its own). */
export const HUB_MIN_NOTES = 50;
export const HUB_FRACTION = 0.01;
/** Hop entities kept per query (strongest first). */
export const MAX_HOP_ENTITIES = 24;
/** Entities taken from the entity index per query. */
const MAX_STARTS = 12;
/** Entity index columns: name words, aliases, description. */
const ENTITY_WEIGHTS = [3, 2, 1] as const;

function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])];
}

/** Distinct query words that match a word of `text` (one is a prefix of the other: "spikes" ~ "spike"). */
function countHits(words: readonly string[], text: string): number {
  const have = text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return words.filter((q) => have.some((w) => w.startsWith(q) || q.startsWith(w))).length;
}

export interface GraphHit extends ArmHit {
  /** Entities that brought the note in, strongest first (for traces). */
  via: string[];
}

/** Activation and name of every entity reached so far, by entity id. */
interface Activation {
  act: Map<number, number>;
  names: Map<number, string>;
}

/** Entities the query names, each activated by its match score over the best one's. */
function startingEntities(h: IndexHandle, query: string): Activation | null {
  const match = ftsQuery(query);
  if (!match) return null;
  const found = h.db
    .prepare(
      `SELECT e.id AS id, e.norm AS norm, e.aliases AS aliases, e.description AS description, bm25(entity_fts, ${ENTITY_WEIGHTS.join(', ')}) AS s
       FROM entity_fts JOIN entities e ON e.id = entity_fts.rowid
       WHERE entity_fts MATCH ? ORDER BY s LIMIT ?`,
    )
    .all(match, MAX_STARTS) as { id: number; norm: string; aliases: string; description: string; s: number }[];
  const words = queryWords(query);
  const named = found.filter((s) => {
    const nameHits = countHits(words, `${s.norm.replace(/-/g, ' ')} ${s.aliases}`);
    return nameHits >= 1 || nameHits + countHits(words, s.description) >= 2;
  });
  if (named.length === 0) return null;
  const best = -named[0]!.s;
  const act = new Map<number, number>();
  const names = new Map<number, string>();
  for (const s of named) {
    const a = best > 0 ? -s.s / best : 1;
    if (a < START_MIN_ACTIVATION) continue;
    act.set(s.id, a);
    names.set(s.id, s.norm);
  }
  return { act, names };
}

/** One hop along live relationships, in either direction; keeps the strongest hops only. */
function hopOut(h: IndexHandle, { act, names }: Activation, nowMs: number): void {
  const startIds = [...act.keys()];
  const ph = startIds.map(() => '?').join(',');
  const edges = h.db
    .prepare(
      `SELECT x.src AS src, x.dst AS dst, x.type AS type, x.strength AS strength, a.norm AS srcNorm, b.norm AS dstNorm
       FROM edges x JOIN entities a ON a.id = x.src JOIN entities b ON b.id = x.dst
       WHERE (x.src IN (${ph}) OR x.dst IN (${ph})) AND x.retired = 0 AND (x.valid_end_ms IS NULL OR x.valid_end_ms > ?)`,
    )
    .all(...startIds, ...startIds, nowMs) as {
    src: number;
    dst: number;
    type: string;
    strength: number;
    srcNorm: string;
    dstNorm: string;
  }[];
  const hop = new Map<number, number>();
  for (const e of edges) {
    const w = (EDGE_TYPE_WEIGHT[e.type] ?? UNKNOWN_EDGE_WEIGHT) * (e.strength / 10) * HOP_DECAY;
    for (const [from, to, toNorm] of [
      [e.src, e.dst, e.dstNorm],
      [e.dst, e.src, e.srcNorm],
    ] as const) {
      const a = act.get(from);
      if (a === undefined || act.has(to)) continue;
      hop.set(to, Math.max(hop.get(to) ?? 0, a * w));
      names.set(to, toNorm);
    }
  }
  // Keep the strongest hops only: a densely linked entity can reach hundreds of others.
  for (const [id, a] of [...hop].sort((x, y) => y[1] - x[1]).slice(0, MAX_HOP_ENTITIES)) act.set(id, a);
}

/** How many notes name each entity, and which entities are hubs (named by too many notes to say much). */
function entityDegrees(h: IndexHandle, ids: number[]): { degree: Map<number, number>; specific: number[]; hubs: number[] } {
  const idList = ids.map(() => '?').join(',');
  const degree = new Map<number, number>();
  for (const r of h.db
    .prepare(`SELECT entity_id AS id, COUNT(DISTINCT note_path) AS c FROM mentions WHERE entity_id IN (${idList}) GROUP BY entity_id`)
    .all(...ids) as { id: number; c: number }[])
    degree.set(r.id, r.c);
  const live = countNotes(h).live;
  const hubAt = Math.max(HUB_MIN_NOTES, HUB_FRACTION * live);
  return {
    degree,
    specific: ids.filter((id) => (degree.get(id) ?? 0) <= hubAt),
    hubs: ids.filter((id) => (degree.get(id) ?? 0) > hubAt),
  };
}

type Entry = { score: number; via: Map<string, number>; key: string | null };
type Mention = { id: number; path: string; key: string | null };

/** Score note paths by the entities they mention (notes are loaded only for the winners). */
function scorePaths(h: IndexHandle, { act, names }: Activation, ids: number[]): Map<string, Entry> {
  const { degree, specific, hubs } = entityDegrees(h, ids);
  const scores = new Map<string, Entry>();
  const credit = (stmt: SqlStatement, params: unknown[]): void => {
    for (const m of stmt.all(...params) as Mention[]) {
      let entry = scores.get(m.path);
      if (!entry) scores.set(m.path, (entry = { score: 0, via: new Map(), key: m.key }));
      const name = names.get(m.id)!;
      if (entry.via.has(name)) continue;
      const contribution = act.get(m.id)! / Math.log2(1 + (degree.get(m.id) ?? 1));
      entry.via.set(name, contribution);
      entry.score += contribution;
    }
  };
  const marks = (list: unknown[]): string => list.map(() => '?').join(',');
  if (specific.length) {
    credit(
      h.db.prepare(`SELECT entity_id AS id, note_path AS path, note_key AS key FROM mentions WHERE entity_id IN (${marks(specific)})`),
      specific,
    );
  }
  // A hub entity (named by many notes) only adds to notes already reached through a specific one.
  const reached = [...scores.keys()];
  if (!hubs.length) return scores;
  for (let i = 0; i < reached.length; i += 500) {
    const batch = reached.slice(i, i + 500);
    const sql = `SELECT entity_id AS id, note_path AS path, note_key AS key FROM mentions
             WHERE entity_id IN (${marks(hubs)}) AND note_path IN (${marks(batch)})`;
    credit(h.db.prepare(sql), [...hubs, ...batch]);
  }
  return scores;
}

/** The best-scored live notes, at most `limit`, one per key. */
function loadWinners(h: IndexHandle, scores: Map<string, Entry>, limit: number): GraphHit[] {
  const ranked = [...scores].sort((a, b) => b[1].score - a[1].score);
  const out: GraphHit[] = [];
  // Load a few more than needed: some paths may be retired notes or orphan sidecars.
  for (let i = 0; i < ranked.length && out.length < limit; i += limit * 2) {
    const slice = ranked.slice(i, i + limit * 2);
    const byPath = notesByPaths(
      h,
      slice.map(([p]) => p),
    );
    const missingKeys = slice.filter(([p, e]) => !byPath.has(p) && e.key).map(([, e]) => e.key!);
    const byKey = notesByKeys(h, missingKeys);
    for (const [p, e] of slice) {
      const note = byPath.get(p) ?? (e.key ? byKey.get(e.key) : undefined);
      if (!note || note.location !== 'documents' || out.some((o) => o.note.key === note.key)) continue;
      out.push({ note, score: e.score, via: [...e.via].sort((a, b) => b[1] - a[1]).map(([n]) => n) });
      if (out.length >= limit) break;
    }
  }
  return out;
}

export function graphSearch(h: IndexHandle, query: string, limit: number, nowMs: number): GraphHit[] {
  const start = startingEntities(h, query);
  if (!start) return [];
  hopOut(h, start, nowMs);
  return loadWinners(h, scorePaths(h, start, [...start.act.keys()]), limit);
}
