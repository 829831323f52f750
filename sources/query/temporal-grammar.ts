/**
 * Temporal grammar: finds a date phrase in a search query ("last week", "in march",
 * "since 2026-06-01", "3 days ago") and turns it into a local-time window.
 *
 * A port of the Python reference's `temporal_extraction.py`: an ordered list of
 * regex rules grouped into passes, where the first rule (in table order) that
 * yields a valid window wins — not the leftmost phrase in the text. chrono-node's
 * strict English parser is consulted only when no rule matches.
 *
 * All dates are naive LOCAL times; day-aligned windows run from 00:00:00.000 of
 * the first day to 23:59:59.999 of the last.
 */
import * as chrono from 'chrono-node/en';
import { mayContainDate } from './date-precheck.js';
import { temporalToJson, type TemporalConstraint } from '../../core/temporal-constraint.js';

export { mayContainDate, temporalToJson, type TemporalConstraint };

import { MONTH, WEEKDAY, MODIFIER_BEFORE_ANCHOR, Span, dateAt, endOfDay, days, validDate } from './temporal-words.js';
import { Hit, group, RULES } from './temporal-rules.js';

const EPOCH_START = (): Date => dateAt(1970, 0, 1);

/**
 * Applies a "before/until/till/since/after" found right before the anchor.
 * An inverted result (e.g. "after today") keeps the plain anchor.
 */
function applyModifier(hit: Hit, anchorText: string, prefix: string, ref: Date): TemporalConstraint {
  const plain: TemporalConstraint = { ...hit, matchedText: anchorText };
  const word = MODIFIER_BEFORE_ANCHOR.exec(prefix)?.[1];
  if (!word) return plain;

  let window: Span;
  if (word === 'before') window = { start: EPOCH_START(), end: new Date(hit.start.getTime() - 1) };
  else if (word === 'since') window = { start: hit.start, end: endOfDay(ref) };
  else if (word === 'after') window = { start: new Date(hit.end.getTime() + 1), end: endOfDay(ref) };
  else window = { start: EPOCH_START(), end: hit.end }; // until / till

  if (window.start > window.end) return plain;
  return { ...window, confidence: hit.confidence, matchedText: `${word} ${anchorText}` };
}

function runGrammar(text: string, ref: Date): TemporalConstraint | null {
  for (const rule of RULES) {
    for (const m of text.matchAll(rule.pattern)) {
      const hit = rule.build(m, ref);
      if (!hit) continue;
      const g = rule.anchor ?? 0;
      const anchorStart = m.indices?.[g]?.[0] ?? m.index;
      return applyModifier(hit, group(m, g).trim(), text.slice(0, anchorStart), ref);
    }
  }
  return null;
}

const BARE_NUMBER = /^\d+$/;
const BARE_WORD = new RegExp(`^(?:${WEEKDAY}|${MONTH})\\.?$`);
/** "1/2", "3/5": fractions as often as dates. */
const BARE_MONTH_DAY = /^\d{1,2}\/\d{1,2}$/;
const PREPOSITION_BEFORE = /\b(?:on|in|since|before|after|until|till|from|by|during|around)\s+$/;
const DATE_PREPOSITION_BEFORE = /\b(?:on|since|before|after|until|till)\s+$/;

/** chrono's strict parser as a last resort; the first acceptable result wins. */
function runChrono(text: string, ref: Date): TemporalConstraint | null {
  for (const r of chrono.strict.parse(text, ref)) {
    const matched = r.text.trim();
    const prefix = text.slice(0, r.index);
    if (BARE_NUMBER.test(matched)) continue;
    if (BARE_WORD.test(matched) && !PREPOSITION_BEFORE.test(prefix)) continue;
    if (BARE_MONTH_DAY.test(matched) && !DATE_PREPOSITION_BEFORE.test(prefix)) continue;
    // Time-only results ("12:30", "5pm") carry no date.
    if (!r.start.isCertain('day') && !r.start.isCertain('month')) continue;

    const dayOf = (c: typeof r.start): Date | null => {
      const y = c.get('year');
      const mo = c.get('month');
      const d = c.get('day');
      return y === null || mo === null || d === null ? null : validDate(y, mo, d);
    };
    let first = dayOf(r.start);
    let last = r.end ? dayOf(r.end) : first;
    if (!first || !last) continue;
    if (first > last) [first, last] = [last, first];
    // Queries look back: an implied year that lands in the future means last year.
    if (!r.start.isCertain('year') && first > endOfDay(ref)) {
      first = dateAt(first.getFullYear() - 1, first.getMonth(), first.getDate());
      last = dateAt(last.getFullYear() - 1, last.getMonth(), last.getDate());
    }
    const exact = r.start.isCertain('year') && r.start.isCertain('month') && r.start.isCertain('day');
    return applyModifier(
      { ...days(first, last), confidence: exact ? 1.0 : 0.8, ...(r.start.isCertain('year') ? {} : { impliedYear: true }) },
      matched,
      prefix,
      ref,
    );
  }
  return null;
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/**
 * Finds the date phrase in `text` (case-insensitive) and returns its local-time
 * window, relative to `ref` (default: now).
 *
 * Grammar passes run in order and the first pass that matches wins; chrono's
 * strict parser is tried only when none does. A "before/until/till/since/after"
 * right before the phrase turns it into an open range: before → [1970-01-01, start),
 * until/till → [1970-01-01, end], since → [start, end of ref day], after → (end, end of ref day].
 *
 * Returns null for empty, whitespace-only or date-free text and for an invalid
 * `ref`. Never throws (any internal error → null) and never returns start > end.
 */
export function extractTemporal(text: string, ref: Date = new Date()): TemporalConstraint | null {
  try {
    if (!mayContainDate(text) || !(ref instanceof Date) || Number.isNaN(ref.getTime())) return null;
    const lower = text.toLowerCase();
    const result = runGrammar(lower, ref) ?? runChrono(lower, ref);
    if (!result || Number.isNaN(result.start.getTime()) || Number.isNaN(result.end.getTime())) return null;
    return result.start <= result.end ? result : null;
  } catch {
    return null;
  }
}
