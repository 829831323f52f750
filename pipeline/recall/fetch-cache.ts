/**
 * The recall cache behind the CachePort: a request's fetch (arms, fusion, model scores) stored in
 * `<state dir>/recall_cache/` by pipeline/recall/cache.ts, and restored against the current index (a cached note
 * that is gone or changed makes the whole entry a miss).
 */
import path from 'node:path';
import type { CachedFetch, CachePort, FetchToStore } from '../../core/ports.js';
import type { Candidate } from '../../core/types.js';
import { notesByPaths, type IndexHandle } from '../../sources/index/index.js';
import {
  CACHE_VERSION,
  fetchedLimitFor,
  modeTokenFor,
  readCache,
  writeCache,
  type CacheHit,
  type CacheKey,
  type CacheOptions,
  type CachePayload,
} from './cache.js';
import type { RecallConfig } from '../config/index.js';
import type { Engines } from './engines.js';

export interface FileCacheOptions {
  query: string;
  mode: string;
  limit: number;
  ttlSec: number;
  config: Pick<
    RecallConfig,
    | 'stateDir'
    | 'fuzzyCache'
    | 'fuzzyThreshold'
    | 'episodeWeight'
    | 'graphArm'
    | 'temporalArm'
    | 'temporalEnabled'
    | 'includeSuperseded'
    | 'teamNotes'
  >;
  engines: Engines;
  kbRoot: string;
  /** What an entry must match to be valid (the index generation, and the reflect index's mtime when that engine is used). */
  generation: string;
  index: IndexHandle;
  now: () => number;
}

export function cacheKeyFor(o: Pick<FileCacheOptions, 'query' | 'mode' | 'limit' | 'engines' | 'kbRoot' | 'config'>): CacheKey {
  const c = o.config;
  // The arm switches, the episode weight and whether retired notes and the pulled team notes stay
  // candidates change what a fetch finds: a fetch made under other settings is another entry, not a hit.
  const arms = `g${Number(c.graphArm)}t${Number(c.temporalArm && c.temporalEnabled)}e${c.episodeWeight}s${Number(c.includeSuperseded)}${c.teamNotes === false ? 'n0' : ''}`;
  return {
    query: o.query,
    mode: o.mode,
    // Engines are part of the key: the same query through reflect or qmd fetches different candidates.
    modeToken: modeTokenFor(`${o.mode}:${o.engines.vectorGraph.kind}:${o.engines.bm25.kind}:${arms}`, path.resolve(o.kbRoot)),
    fetchedLimit: fetchedLimitFor(o.limit),
  };
}

function toPayload(fetch: FetchToStore, key: CacheKey, generation: string, nowMs: number): CachePayload {
  return {
    version: CACHE_VERSION,
    query: key.query,
    mode: key.mode,
    modeToken: key.modeToken,
    fetchedLimit: key.fetchedLimit,
    generation,
    fetchedAt: nowMs,
    candidates: fetch.candidates.map((c) => ({ path: c.note.path, key: c.note.key, rrf: c.rrf, evidence: c.evidence, ranks: c.ranks })),
    retired: fetch.retired.map((c) => ({ path: c.note.path, key: c.note.key, rrf: c.rrf, evidence: c.evidence, ranks: c.ranks })),
    ce: fetch.ce ? Object.fromEntries(fetch.ce) : null,
    embeddings: fetch.embeddings ? { query: fetch.embeddings.query, docs: Object.fromEntries(fetch.embeddings.docs) } : null,
    arms: fetch.arms.map(({ hits: _hits, ...rest }) => rest),
    degraded: fetch.degraded,
  };
}

/** The fetch of a cache hit, or null when a cached note is gone from the index or changed. */
function fromPayload(hit: CacheHit, index: IndexHandle): CachedFetch | null {
  const p = hit.payload;
  const notes = notesByPaths(
    index,
    [...p.candidates, ...(p.retired ?? [])].map((c) => c.path),
  );
  const candidates: Candidate[] = [];
  for (const c of p.candidates) {
    const note = notes.get(c.path);
    if (!note || note.key !== c.key) return null;
    candidates.push({ note, rrf: c.rrf, evidence: c.evidence, ranks: c.ranks });
  }
  // A retired note that is gone or changed only lends no relevance to its replacement.
  const retired: Candidate[] = [];
  for (const c of p.retired ?? []) {
    const note = notes.get(c.path);
    if (note && note.key === c.key) retired.push({ note, rrf: c.rrf, evidence: c.evidence, ranks: c.ranks });
  }
  return {
    tier: hit.tier,
    arms: p.arms.map((a) => ({ ...a, hits: [] })),
    candidates,
    retired,
    ce: p.ce ? new Map(Object.entries(p.ce)) : null,
    embeddings: p.embeddings ? { query: p.embeddings.query, docs: new Map(Object.entries(p.embeddings.docs)) } : null,
    degraded: p.degraded,
  };
}

export function fileCache(o: FileCacheOptions): CachePort {
  const key = cacheKeyFor(o);
  const dir = path.join(o.config.stateDir, 'recall_cache');
  return {
    read: () => {
      const opts: CacheOptions = {
        dir,
        ttlSec: o.ttlSec,
        fuzzy: o.config.fuzzyCache,
        fuzzyThreshold: o.config.fuzzyThreshold,
        generation: o.generation,
        nowMs: o.now(),
      };
      const found = readCache(key, opts);
      return found ? fromPayload(found, o.index) : null;
    },
    write: (fetch) => writeCache(key, toPayload(fetch, key, o.generation, o.now()), dir, o.now()),
  };
}
