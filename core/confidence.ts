/**
 * Confidence tiers: the words a note's `confidence` field holds (the reflect-kb note format, a
 * compatibility contract: upper-case when read, lower-case in notes recall writes) and the ranking
 * confidence in 0..1 each tier stands for when a note gives no number.
 */

/** The tiers a new note may have, as written in its frontmatter. */
export const CONFIDENCE_TIERS = ['high', 'medium', 'low'] as const;
export type ConfidenceTier = (typeof CONFIDENCE_TIERS)[number];

/** Ranking confidence of each tier (its midpoint), written next to the tier and assumed when a note gives none. */
export const TIER_CONFIDENCE: Readonly<Record<ConfidenceTier, number>> = { high: 0.9, medium: 0.6, low: 0.3 };

/** Ranking confidence of a note whose tier is unknown (the medium tier's). */
export const UNKNOWN_TIER_CONFIDENCE = TIER_CONFIDENCE.medium;

/** Whether `s` names a tier a new note may have. */
export function isConfidenceTier(s: string): s is ConfidenceTier {
  return (CONFIDENCE_TIERS as readonly string[]).includes(s);
}

/** Ranking confidence of a tier as read from a note (any case; MED is MEDIUM's short form). */
export function tierConfidence(tier: string): number {
  const t = tier.toLowerCase();
  if (t === 'med') return TIER_CONFIDENCE.medium;
  return isConfidenceTier(t) ? TIER_CONFIDENCE[t] : UNKNOWN_TIER_CONFIDENCE;
}

/** Tier of a numeric confidence, as the reference derives it: HIGH from 0.8, MEDIUM from 0.5, else LOW. */
export function tierOfNumber(value: number): 'HIGH' | 'MEDIUM' | 'LOW' {
  return value >= 0.8 ? 'HIGH' : value >= 0.5 ? 'MEDIUM' : 'LOW';
}
