/**
 * A command turned into one recall: the request (flags over settings) and the effects it runs with,
 * wired to the session's KB index, engines, models and ledger.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NO_CACHE, type ModelClient } from '../../core/ports.js';
import { queryTerms } from '../../core/stems.js';
import { STOPWORDS } from '../../core/terms.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import type { ArmHit } from '../../core/types.js';
import type { Observable } from 'rxjs';
import type { TraceSink } from '../../operators/trace-stage.js';
import { mayContainDate, expandQuery, infoOf, wordCounts } from '../../sources/query/index.js';
import { askedWorkWords } from '../../operators/action/index.js';
import {
  findRetired,
  findSupersededBy,
  linkedNotes,
  notesInWindow,
  storedVectors,
  successorNotes,
  termStats,
  type IndexHandle,
} from '../../sources/index/index.js';
import { openLedger } from '../../sources/ledger.js';
import { armSpecs } from './arm-specs.js';
import type { RecallConfig } from '../config/index.js';
import type { Engines } from './engines.js';
import { fileCache } from './fetch-cache.js';
import type { RecallDeps, RecallRequest } from './request.js';
import type { Scope } from '../scope.js';

/**
 * An entity mentioned by at most max(3, 1% of the live notes) notes is specific enough for two notes
 * that share it to count as related (the relevance estimate's entity links).
 */
const LINK_HUB_MIN_NOTES = 3;
const LINK_HUB_FRACTION = 0.01;
/** An entity named by more notes than this is a hub (say "postgres"): it links nothing and succeeds nothing. */
export const linkHub = (liveNotes: number): number => Math.max(LINK_HUB_MIN_NOTES, Math.ceil(liveNotes * LINK_HUB_FRACTION));

/**
 * Characters of a query searched for date phrases: a pasted 500 KB log would make the date grammar
 * (and chrono) run for seconds, and a date phrase worth honouring comes early in a prompt.
 */
const DATE_SCAN_CHARS = 4000;

/**
 * WordNet-related words for a query's specific words (none when the word counts or the table are
 * missing), and the words that name the kinds of work it asks for (askedWorkWords).
 */
function relatedForQuery(query: string): string[] {
  return [...wordNetRelated(query), ...askedWorkWords(query)];
}

function wordNetRelated(query: string): string[] {
  try {
    const counts = wordCounts();
    const raw = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
    return expandQuery(queryTerms(query), raw, (stem) => infoOf(counts, stem));
  } catch {
    return [];
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** Document frequencies in this KB's index and everyday-English weights of the given stems; each side fails on its own. */
function weighTerms(
  index: IndexHandle,
  stems: readonly string[],
  infoOnly = false,
): { live: number; df: Map<string, number> | Error; info: Map<string, number> | Error; names?: Set<string> } {
  let live = 1;
  let df: Map<string, number> | Error = new Map();
  if (!infoOnly)
    try {
      const s = termStats(index, stems);
      live = s.live;
      df = s.df;
    } catch (err) {
      df = asError(err);
    }
  let info: Map<string, number> | Error;
  let names: Set<string> | undefined;
  try {
    const counts = wordCounts();
    info = new Map(stems.map((s) => [s, infoOf(counts, s)]));
    names = new Set(stems.filter((s) => counts.isName(s)));
  } catch (err) {
    info = asError(err);
  }
  return { live, df, info, ...(names ? { names } : {}) };
}

/** The date grammar, loaded only when the query may hold a date phrase. */
export async function temporalExtractor(query: string, enabled: boolean): Promise<(q: string) => TemporalConstraint | null> {
  if (!enabled || !mayContainDate(query.slice(0, DATE_SCAN_CHARS))) return () => null;
  const { extractTemporal } = await import('../../sources/query/temporal-grammar.js');
  return (q) => extractTemporal(q.slice(0, DATE_SCAN_CHARS));
}

/** Cache validity stamp: index generation, plus the reflect index's mtime when reflect serves an arm. */
function cacheStamp(generation: number, engines: Engines, root: string): string {
  if (engines.vectorGraph.kind !== 'reflect') return String(generation);
  let mtime = 0;
  try {
    mtime = fs.statSync(path.join(root, 'nano_graphrag_cache')).mtimeMs;
  } catch {
    /* no reflect index */
  }
  return `${generation}:${mtime}`;
}

/** What a session hands to each of its recalls. */
export interface RecallWiring {
  config: RecallConfig;
  scope: Scope;
  index: IndexHandle;
  /** Index generation, or null when it could not be read (then the cache is off for this run). */
  generation: number | null;
  /** Live notes in the KB (sizes the entity-link hub limit). */
  liveNotes: number;
  engines: Engines;
  models: ModelClient;
  now: () => number;
  currentProject: () => string;
  env: Readonly<Record<string, string | undefined>>;
  extractTemporal: (query: string) => TemporalConstraint | null;
  trace?: TraceSink;
  teamArm?: (query: string, limit: number, timeoutMs: number) => Observable<ArmHit[]>;
}

export function recallDeps(req: RecallRequest, w: RecallWiring): RecallDeps {
  const { config, index, engines, models, now } = w;
  const indexGeneration = w.generation ?? -1;
  const arms = { config, engines, kbRoot: w.scope.root, index, indexGeneration, models, now, env: w.env, expandQuery: relatedForQuery };
  const generation = cacheStamp(indexGeneration, engines, w.scope.root);
  const cacheOf = { query: req.query, mode: req.mode, limit: req.limit, ttlSec: req.cacheTtlSec, config, engines, kbRoot: w.scope.root };
  return {
    config,
    scope: w.scope,
    models,
    now,
    currentProject: w.currentProject,
    ledger: () => openLedger(config.dbPath),
    extractTemporal: w.extractTemporal,
    engineFallbacks: engines.fallbacks,
    arms: (plan) => armSpecs(plan, w.teamArm ? { ...arms, teamArm: w.teamArm } : arms),
    cache: req.noCache ? NO_CACHE : fileCache({ ...cacheOf, generation, index, now }),
    // The superseded filter's lookups: the index, and the reference's reflect.db ledger when it
    // exists, opened only when a candidate is left to check against it (see RecallDeps.ledger).
    retired: (ledger) => ({
      supersededBy: (keys) => findSupersededBy(index, keys),
      retiredCopies: (keys, hashes) => findRetired(index, keys, hashes),
      ledgerRetired: (fileNames, hashes) => ledger()?.retired(fileNames, hashes) ?? [],
    }),
    storedVectors: (paths) => (models.models.embed ? storedVectors(index, models.models.embed, paths) : new Map()),
    weighTerms: (stems, opts) => weighTerms(index, stems, opts?.infoOnly),
    hasNotesIn: (startMs, endMs) => notesInWindow(index, startMs, endMs, 1).length > 0,
    linkedNotes: (paths) => linkedNotes(index, paths, linkHub(w.liveNotes), now()),
    successorNotes: (paths) => successorNotes(index, paths, linkHub(w.liveNotes), now()),
    ...(w.trace ? { trace: w.trace } : {}),
  };
}
