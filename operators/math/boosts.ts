/**
 * Bounded multiplicative boosts and the relevance component of the score. Pure.
 *
 * boost(norm, α) = 1 + α·(clamp01(norm) − 0.5): inside [1 − α/2, 1 + α/2], exactly 1 at norm 0.5,
 * so no single signal can dominate the relevance it multiplies.
 */
import type { BoostName } from '../../core/types.js';
import type { Note } from '../../core/note/index.js';
import { DAY_MS } from '../../core/dates.js';

export function clamp01(x: number): number {
  if (Number.isNaN(x)) return 0.5;
  return Math.min(1, Math.max(0, x));
}

export function boundedBoost(norm: number, alpha: number): number {
  return 1 + alpha * (clamp01(norm) - 0.5);
}

/** Logistic function, saturating to exactly 0/1 far out instead of overflowing. */
export function sigmoid(x: number): number {
  if (x >= 40) return 1;
  if (x <= -40) return 0;
  return 1 / (1 + Math.exp(-x));
}

/** Score component of candidates outside the rerank window: below every scored candidate. */
export const UNSCORED_RELEVANCE = 1e-6;
/** Recency decays linearly to its floor over this many days. */
export const RECENCY_WINDOW_DAYS = 365;
/** Oldest notes keep this much recency norm: a toehold, so an old but proven note can still rank. */
export const RECENCY_FLOOR = 0.1;

export interface BoostContext {
  nowMs: number;
  /** Lower-cased query tags (from --tags). */
  queryTags: readonly string[];
  /** Current project ('' = unknown, or a single-project shard: neutral). */
  currentProject: string;
  /** Lower-cased --domain-hint ('' = none). */
  domainHint: string;
}

export type BoostNorms = Record<BoostName, number>;

/** Recency norm: 1 − age/365 days, floored at 0.1; future dates 1.0; undated 0.5. */
export function recencyNorm(dateMs: number | null, nowMs: number): number {
  if (dateMs === null || !Number.isFinite(dateMs)) return 0.5;
  const days = (nowMs - dateMs) / DAY_MS;
  if (days <= 0) return 1;
  return Math.min(1, Math.max(RECENCY_FLOOR, 1 - days / RECENCY_WINDOW_DAYS));
}

const AUTHORITY_NORM: Record<string, number> = { law: 1, promoted: 1, advisory: 0.5, archived: 0 };

/** How one boost reads a note: its signal normalised to 0..1, 0.5 being neutral. */
export type BoostNorm = (note: Note, ctx: BoostContext) => number;

/** The norm that makes a boost's factor exactly 1 (used when a boost cannot be computed). */
export const NEUTRAL_NORM = 0.5;

/** Share of the query's tags the note carries; neutral without query tags. */
function tagsNorm(note: Note, ctx: BoostContext): number {
  if (ctx.queryTags.length === 0) return 0.5;
  const have = new Set(note.tags);
  const want = new Set(ctx.queryTags);
  let hit = 0;
  for (const t of want) if (have.has(t)) hit += 1;
  return hit / want.size;
}

/**
 * Each boost's norm, in the order the factors are multiplied (kept fixed so scores are
 * reproducible to the last bit).
 */
export const BOOST_NORMS: Readonly<Record<BoostName, BoostNorm>> = {
  confidence: (note) => clamp01((note.confidenceNum - 0.3) / 0.6),
  recency: (note, ctx) => recencyNorm(note.recencyMs, ctx.nowMs),
  tags: tagsNorm,
  proof: (note) => (note.proofCount !== null && note.proofCount >= 1 ? clamp01(0.5 + Math.log(note.proofCount) / 10) : 0.5),
  project: (note, ctx) => (ctx.currentProject !== '' && note.projectId !== '' && note.projectId === ctx.currentProject ? 1 : 0.5),
  domain: (note, ctx) => (ctx.domainHint !== '' && note.domain === ctx.domainHint ? 1 : 0.5),
  authority: (note) => AUTHORITY_NORM[note.authority] ?? 0.5,
  speculative: (note) => (note.tags.includes('speculative') ? 0 : 0.5),
};

export const BOOST_NAMES = Object.keys(BOOST_NORMS) as readonly BoostName[];

/** Each signal of a note normalised to 0..1, 0.5 being neutral. */
export function boostNorms(note: Note, ctx: BoostContext): BoostNorms {
  const out = {} as BoostNorms;
  for (const k of BOOST_NAMES) out[k] = BOOST_NORMS[k](note, ctx);
  return out;
}

export type BoostFactors = Record<BoostName, number>;

export function boostFactors(norms: BoostNorms, alphas: Readonly<Record<BoostName, number>>): BoostFactors {
  const out = {} as BoostFactors;
  for (const k of Object.keys(norms) as BoostName[]) out[k] = boundedBoost(norms[k], alphas[k]);
  return out;
}

export function boostProduct(factors: BoostFactors): number {
  let p = 1;
  for (const v of Object.values(factors)) p *= v;
  return p;
}
