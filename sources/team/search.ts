/**
 * Live search of the team store (full text, with note vectors when both sides have them), and
 * the counts and history `recall team status` and `recall team history` show.
 */
import type { StoreRow } from './shard.js';
import { STOPWORDS } from '../../core/terms.js';
import { ident, type TeamConnection } from './connection.js';
import { ROW_COLS, toStoreRow, type RawRow } from './rows.js';

/**
 * Words of a query as an OR full-text query (a prompt-shaped query rarely has every word in one
 * note). Only letters and digits reach the query syntax; stopwords dropped, at most 32 words.
 */
export function orTsQuery(query: string): string {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
    .filter((w) => w.length >= 2 && !STOPWORDS.has(w))
    .slice(0, 32);
  return words.map((w) => w.slice(0, 64)).join(' | ');
}

/** Candidates read from the store by full text before vectors re-rank them (client-side scoring). */
const VECTOR_POOL = 100;
/** Candidates each full-text stage keeps before the final ranking on the whole text. */
const TEXT_CANDIDATES = 200;

export interface StoreHit {
  /** The note and the revision of it that matched. */
  id: string;
  revision: number;
  /** Higher is better: ts_rank_cd alone, or a fused full-text + vector score when a query vector was given. */
  score: number;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** A matching revision: which one, its rank, and its vector when it has one of the query's model. No content. */
interface TextRow {
  id: string;
  revision: number;
  rank: number;
  vec: number[] | null;
}
interface QueryVector {
  model: string;
  query: number[];
  pgvector: boolean;
}

/**
 * Candidates: revisions whose heading (title, key insight, tags) holds any query word, ranked on that
 * small vector; only when those are too few, also revisions whose whole text holds every query word.
 * Then the candidates are ranked on the whole text. Ranking every note that merely uses a common
 * query word in its body is what makes an OR search slow on a large store. Every revision is a
 * candidate, not only the store's latest: which revision a machine shows is its own choice (a
 * trusted author's revision under an untrusted teammate's newer one), made by the caller.
 */
async function textCandidates(
  conn: TeamConnection,
  q: string,
  limit: number,
  notMachine: string,
  model: string | null,
  pool: number,
): Promise<TextRow[]> {
  if (!q) return [];
  const s = ident(conn.schema);
  return conn.query<TextRow>(
    `WITH q AS (SELECT to_tsquery('english', $1) AS o, to_tsquery('english', $5) AS a),
     heading AS MATERIALIZED (
       SELECT n.id, n.revision FROM ${s}.notes n, q WHERE n.tsv_head @@ q.o AND NOT (n.machine = $3 AND n.author = session_user)
       ORDER BY ts_rank_cd(n.tsv_head, q.o, 1) DESC LIMIT $7),
     allwords AS (
       SELECT n.id, n.revision FROM ${s}.notes n, q WHERE (SELECT count(*) FROM heading) < $2 AND n.tsv @@ q.a AND NOT (n.machine = $3 AND n.author = session_user)
       ORDER BY ts_rank_cd(n.tsv, q.a, 1) DESC LIMIT $7),
     cand AS (SELECT * FROM heading UNION SELECT * FROM allwords)
     SELECT n.id, n.revision, ts_rank_cd(n.tsv, q.o, 1) AS rank,
            CASE WHEN n.embed_model = $4 THEN n.embedding END AS vec
     FROM ${s}.notes n JOIN cand USING (id, revision), q
     ORDER BY rank DESC, n.id, n.revision DESC LIMIT $6`,
    [q, limit, notMachine, model, q.split(' | ').join(' & '), pool, Math.max(pool, TEXT_CANDIDATES)],
  );
}

/** Revisions by vector: pgvector's cosine distance on the server, else cosine in the client over the text candidates. */
async function vectorCandidates(
  conn: TeamConnection,
  vector: QueryVector,
  notMachine: string,
  pool: number,
  text: TextRow[],
): Promise<{ id: string; revision: number; sim: number }[]> {
  if (!vector.pgvector) {
    const byVector = text.filter((r) => r.vec).map((r) => ({ id: r.id, revision: r.revision, sim: cosine(vector.query, r.vec!) }));
    return byVector.sort((a, b) => b.sim - a.sim);
  }
  const s = ident(conn.schema);
  const lit = `[${vector.query.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
  const rows = await conn.query<{ id: string; revision: number; sim: number }>(
    `SELECT id, revision, 1 - (embedding_v <=> $1::vector) AS sim FROM ${s}.notes
     WHERE embed_model = $2 AND NOT (machine = $3 AND author = session_user) AND embedding_v IS NOT NULL
     ORDER BY embedding_v <=> $1::vector LIMIT $4`,
    [lit, vector.model, notMachine, pool],
  );
  return rows.map((r) => ({ id: r.id, revision: r.revision, sim: Number(r.sim) }));
}

/** Each signal in 0..1 (text rank over the best text rank, cosine similarity floored at 0), summed per revision. */
function fuse(text: TextRow[], byVector: { id: string; revision: number; sim: number }[], limit: number): StoreHit[] {
  const best = text.reduce((m, r) => Math.max(m, Number(r.rank)), 0);
  const fused = new Map<string, StoreHit>();
  const add = (id: string, revision: number, part: number): void => {
    const key = `${revision}\0${id}`;
    const cur = fused.get(key) ?? { id, revision, score: 0 };
    cur.score += part;
    fused.set(key, cur);
  };
  for (const r of text) add(r.id, r.revision, best > 0 ? Number(r.rank) / best : 0);
  for (const v of byVector) add(v.id, v.revision, Math.max(0, v.sim));
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : b.revision - a.revision))
    .slice(0, limit);
}

/**
 * Revisions matching the query, best first, from other publishers: not the ones this role
 * published from the machine `notMachine` (a teammate on the same host is another role). Full text
 * (ts_rank_cd, length-normalised) always; with a query vector, note vectors of the same model also
 * rank: by pgvector's cosine distance on the server when it has the extension (which also finds
 * notes sharing no word with the query), else by cosine in the client over the full-text
 * candidates. The score is the sum of the two signals, each in 0..1 (text rank over the best one;
 * cosine, floored at 0), so the vector decides between notes the words rank alike. Every revision
 * can match, the store's latest or not: the caller decides which one of a note is shown
 * (sources/team/revisions.ts) and keeps the note when that revision is among the hits. No content
 * is read here.
 */
export async function searchStore(
  conn: TeamConnection,
  query: string,
  limit: number,
  notMachine: string,
  vector: QueryVector | null = null,
): Promise<StoreHit[]> {
  const pool = vector ? Math.max(limit, VECTOR_POOL) : limit;
  const text = await textCandidates(conn, orTsQuery(query), limit, notMachine, vector?.model ?? null, pool);
  if (!vector) return text.slice(0, limit).map((r) => ({ id: r.id, revision: r.revision, score: Number(r.rank) }));
  return fuse(text, await vectorCandidates(conn, vector, notMachine, pool, text), limit);
}

export interface StoreCounts {
  notes: number;
  current: number;
  superseded: number;
  forgotten: number;
  revisions: number;
  /** Revisions that lost a conflict or were replaced by a newer edit. */
  olderRevisions: number;
  authors: Record<string, number>;
  withVectors: number;
}

export async function storeCounts(conn: TeamConnection): Promise<StoreCounts> {
  const s = ident(conn.schema);
  const [c] = await conn.query<Record<string, string>>(
    `SELECT count(*) FILTER (WHERE head) AS notes,
            count(*) FILTER (WHERE head AND state = 'current') AS current,
            count(*) FILTER (WHERE head AND state = 'superseded') AS superseded,
            count(*) FILTER (WHERE head AND state = 'forgotten') AS forgotten,
            count(*) AS revisions,
            count(*) FILTER (WHERE NOT head) AS older,
            count(*) FILTER (WHERE head AND embedding IS NOT NULL) AS vectors
     FROM ${s}.notes`,
  );
  const authors = await conn.query<{ author: string; n: string }>(
    `SELECT author, count(*) AS n FROM ${s}.notes WHERE head AND state = 'current' GROUP BY author ORDER BY author`,
  );
  return {
    notes: Number(c?.['notes'] ?? 0),
    current: Number(c?.['current'] ?? 0),
    superseded: Number(c?.['superseded'] ?? 0),
    forgotten: Number(c?.['forgotten'] ?? 0),
    revisions: Number(c?.['revisions'] ?? 0),
    olderRevisions: Number(c?.['older'] ?? 0),
    withVectors: Number(c?.['vectors'] ?? 0),
    authors: Object.fromEntries(authors.map((a) => [a.author, Number(a.n)])),
  };
}

/** Every revision of one note, newest first (`recall team history ID`). */
export async function noteHistory(conn: TeamConnection, id: string): Promise<StoreRow[]> {
  const s = ident(conn.schema);
  const rows = await conn.query<RawRow>(`SELECT ${ROW_COLS} FROM ${s}.notes WHERE id = $1 ORDER BY revision DESC`, [id]);
  return rows.map(toStoreRow);
}
