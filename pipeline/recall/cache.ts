/**
 * Recall cache: `<state dir>/recall_cache/`, in the reflect-kb reference layout (entry files and
 * the fuzzy `index.json` keep its names and fields, so both tools can share a state dir).
 *
 * - Exact tier: file `sha1(version|query|mode-token|fetched_limit)[:16].json`; the mode token folds
 *   in the KB root, and fetched_limit = max(2·limit, 10) so limits 1..5 share an entry.
 * - Fuzzy tier: when the exact file misses, the query's terms (Porter stems) are compared with those
 *   of the newest 200 entries of `index.json` by Jaccard similarity weighted by how much each term
 *   says (everyday-English information, sources/query/word-info.ts): the best at or above the threshold (0.85)
 *   wins, and only if no specific term (a name, or information ≥ 0.45) is in one query and not the
 *   other: "… in terraform" never reuses "… in redis", however long the shared rest. Queries with
 *   fewer than 2 terms never fuzzy-match; without the word counts the fuzzy tier is off.
 * - Valid for the TTL (1 h) and only while the KB index generation is unchanged, so any added,
 *   edited or deleted note invalidates every entry of that KB at once.
 * - A hit skips the arms, cross-encoder and embeddings; scoring and filters run again.
 * - Files are written atomically; a corrupt file or index is a miss, never an error. The index is
 *   read-modified-written under its lock (concurrent hooks would otherwise drop each other's entries).
 * - Query text is stored scrubbed of secrets (entries, their degradation messages and the fuzzy
 *   index); the file name is a hash of the scrubbed query.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { queryTerms } from '../../core/stems.js';
import { infoOf, wordCounts } from '../../sources/query/index.js';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import { withFileLock } from '../../sinks/logs/index.js';
import { scrub, scrubStrings } from '../../sinks/scrub/index.js';
import type { ArmName, ArmOutcome, CacheTier, Degradation } from '../../core/types.js';

/** Bump when what a cached fetch means changes (fusion, filters, arm set, what an arm searches: v7 added the asked work's words). */
export const CACHE_VERSION = 'ts-v7';
/** Entries kept in the fuzzy index: the newest 200, as the reference keeps, bounds the comparison cost per miss. */
export const FUZZY_INDEX_CAP = 200;
/** Fewer content terms than this never fuzzy-match: one shared word says nothing about two queries. */
const FUZZY_MIN_TERMS = 2;
/**
 * A term at least this informative must be in both queries for a fuzzy match: low enough to keep
 * "windows" (0.51) from reusing "mac" (0.59), "staging" (0.55) from reusing "production" (0.57), or
 * one lower-case name from reusing another ("john" 0.48, "alice" 0.59).
 */
export const FUZZY_SPECIFIC_INFO = 0.45;

/** A query's terms for the fuzzy tier: stems, with names marked (a name is always specific). */
function fuzzyTerms(query: string): { stems: string[]; proper: string[] } {
  const terms = queryTerms(query);
  return { stems: terms.map((t) => t.stem), proper: terms.filter((t) => t.proper).map((t) => t.stem) };
}

/**
 * Information-weighted Jaccard similarity of two queries' stems, or 0 when a specific term (a name,
 * or information ≥ FUZZY_SPECIFIC_INFO) is in one and not the other.
 */
export function fuzzySimilarity(
  a: { stems: readonly string[]; proper: readonly string[] },
  b: { stems: readonly string[]; proper: readonly string[] },
  info: (stem: string) => number,
): number {
  const sa = new Set(a.stems);
  const sb = new Set(b.stems);
  const proper = new Set([...a.proper, ...b.proper]);
  const weight = (t: string): number => (proper.has(t) ? 1 : info(t));
  let inter = 0;
  let union = 0;
  for (const t of new Set([...sa, ...sb])) {
    const w = weight(t);
    const both = sa.has(t) && sb.has(t);
    if (!both && w >= FUZZY_SPECIFIC_INFO) return 0;
    union += w;
    if (both) inter += w;
  }
  return union > 0 ? inter / union : 0;
}

export interface CachedCandidate {
  path: string;
  key: string;
  rrf: number;
  evidence: number;
  ranks: Partial<Record<ArmName, number>>;
}

export interface CachePayload {
  version: string;
  query: string;
  mode: string;
  modeToken: string;
  fetchedLimit: number;
  /** Index generation (plus the reflect index's mtime when that engine serves an arm). */
  generation: string;
  fetchedAt: number;
  candidates: CachedCandidate[];
  /** The candidates the superseded filter took out (absent in entries written before they were kept). */
  retired?: CachedCandidate[];
  ce: Record<string, number> | null;
  embeddings: { query: number[]; docs: Record<string, number[]> } | null;
  arms: Omit<ArmOutcome, 'hits'>[];
  degraded: Degradation[];
}

interface IndexEntry {
  query: string;
  tokens: string[];
  /** Stems marked as names in the query. */
  proper?: string[];
  modeToken: string;
  limit: number;
  version: string;
  storedAt: number;
}

export interface CacheKey {
  query: string;
  mode: string;
  modeToken: string;
  fetchedLimit: number;
}

export interface CacheOptions {
  dir: string;
  ttlSec: number;
  fuzzy: boolean;
  fuzzyThreshold: number;
  generation: string;
  nowMs: number;
}

export function fetchedLimitFor(limit: number): number {
  return Math.max(limit * 3, 10);
}

export function modeTokenFor(mode: string, kbRoot: string): string {
  return `${mode}@${createHash('sha1').update(kbRoot).digest('hex').slice(0, 8)}`;
}

/**
 * The entry's file name. It hashes the scrubbed query: a hash of the raw one would let anyone who
 * can list the folder test guesses of a short password in a prompt they otherwise know.
 */
export function cacheDigest(key: CacheKey): string {
  return createHash('sha1')
    .update(`${CACHE_VERSION}|${scrub(key.query)}|${key.modeToken}|${key.fetchedLimit}`)
    .digest('hex')
    .slice(0, 16);
}

function payloadFile(dir: string, digest: string): string {
  return path.join(dir, `${digest}.json`);
}

function validPayload(p: CachePayload | null, key: CacheKey, opts: CacheOptions, exact: boolean): p is CachePayload {
  if (!p || p.version !== CACHE_VERSION || !Array.isArray(p.candidates)) return false;
  if (p.retired !== undefined && !Array.isArray(p.retired)) return false;
  if (p.modeToken !== key.modeToken || p.fetchedLimit !== key.fetchedLimit) return false;
  if (exact && p.query !== scrub(key.query)) return false;
  if (p.generation !== opts.generation) return false;
  const age = (opts.nowMs - p.fetchedAt) / 1000;
  return age >= 0 && age <= opts.ttlSec;
}

export interface CacheHit {
  tier: Exclude<CacheTier, null>;
  payload: CachePayload;
}

export function readCache(key: CacheKey, opts: CacheOptions): CacheHit | null {
  const digest = cacheDigest(key);
  const exact = readJson<CachePayload | null>(payloadFile(opts.dir, digest), null);
  if (validPayload(exact, key, opts, true)) return { tier: 'exact', payload: exact };
  if (!opts.fuzzy) return null;
  // Entries in the index hold the scrubbed query's terms: compare like with like.
  const mine = fuzzyTerms(scrub(key.query));
  if (mine.stems.length < FUZZY_MIN_TERMS) return null;
  let info: (stem: string) => number;
  try {
    const counts = wordCounts();
    info = (stem) => infoOf(counts, stem);
  } catch {
    return null; // without word weights no comparison can tell "terraform" from "redis"
  }
  const index = readJson<Record<string, IndexEntry>>(path.join(opts.dir, 'index.json'), {});
  if (!index || typeof index !== 'object') return null;
  const matches: { digest: string; sim: number }[] = [];
  for (const [d, e] of Object.entries(index)) {
    if (d === digest || !e || e.version !== CACHE_VERSION || e.modeToken !== key.modeToken || e.limit !== key.fetchedLimit) continue;
    if (!Array.isArray(e.tokens)) continue;
    const sim = fuzzySimilarity(mine, { stems: e.tokens, proper: Array.isArray(e.proper) ? e.proper : [] }, info);
    if (sim >= opts.fuzzyThreshold) matches.push({ digest: d, sim });
  }
  matches.sort((a, b) => b.sim - a.sim || (a.digest < b.digest ? 1 : -1));
  for (const m of matches) {
    const p = readJson<CachePayload | null>(payloadFile(opts.dir, m.digest), null);
    if (validPayload(p, key, opts, false)) return { tier: 'fuzzy', payload: p };
  }
  return null;
}

export function writeCache(key: CacheKey, payload: CachePayload, dir: string, nowMs: number): void {
  const digest = cacheDigest(key);
  const query = scrub(key.query);
  // Degradation and arm messages can quote the query (a search engine's syntax error does): scrubbed too.
  const stored = { ...payload, query, degraded: scrubStrings(payload.degraded), arms: scrubStrings(payload.arms) };
  writeFileAtomic(payloadFile(dir, digest), JSON.stringify(stored));
  const indexFile = path.join(dir, 'index.json');
  withFileLock(indexFile, () => updateIndex(indexFile, dir, digest, key, query, nowMs), 500);
}

function updateIndex(indexFile: string, dir: string, digest: string, key: CacheKey, query: string, nowMs: number): void {
  const index = readJson<Record<string, IndexEntry>>(indexFile, {});
  const safe: Record<string, IndexEntry> = index && typeof index === 'object' && !Array.isArray(index) ? index : {};
  const terms = fuzzyTerms(query);
  safe[digest] = {
    query: query.slice(0, 200),
    tokens: [...new Set(terms.stems)].sort(),
    proper: terms.proper,
    modeToken: key.modeToken,
    limit: key.fetchedLimit,
    version: CACHE_VERSION,
    storedAt: nowMs / 1000,
  };
  const kept = Object.entries(safe)
    .filter(([d]) => fs.existsSync(payloadFile(dir, d)))
    .sort((a, b) => (b[1]?.storedAt ?? 0) - (a[1]?.storedAt ?? 0))
    .slice(0, FUZZY_INDEX_CAP);
  writeFileAtomic(indexFile, JSON.stringify(Object.fromEntries(kept)));
}
