/**
 * A time window named by a date phrase of a query, and its JSON form. Kept apart from the grammar
 * so renderers and stages can use it without loading chrono-node.
 */
import { toNaiveIso } from './dates.js';

export interface TemporalConstraint {
  start: Date;
  end: Date;
  confidence: number;
  matchedText: string;
  /**
   * The phrase names no year ("in july", "on may 3") and the year was taken as the latest one not in
   * the future. The recall moves such a window back to the latest year that has notes in it (a KB of
   * 2023 notes asked about "july" means July 2023).
   */
  impliedYear?: boolean;
}

/**
 * JSON form used by the CLI: naive local ISO start/end (Python isoformat style; an end-of-day
 * value prints as .999999), confidence rounded to 2 decimal places, the matched phrase.
 */
export function temporalToJson(c: TemporalConstraint): { start: string; end: string; confidence: number; matched_text: string } {
  return {
    start: toNaiveIso(c.start),
    end: toNaiveIso(c.end),
    confidence: Math.round(c.confidence * 100) / 100,
    matched_text: c.matchedText,
  };
}
