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
import { temporalToJson, type TemporalConstraint } from '../core/temporal-constraint.js';

export { mayContainDate, temporalToJson, type TemporalConstraint };


// ---------------------------------------------------------------------------
// Vocabulary
// ---------------------------------------------------------------------------

/** Month words (0-based month index). `may` is only ever the full word. */
const MONTHS: Readonly<Record<string, number>> = {
  january: 0, jan: 0,
  february: 1, feb: 1,
  march: 2, mar: 2,
  april: 3, apr: 3,
  may: 4,
  june: 5, jun: 5,
  july: 6, jul: 6,
  august: 7, aug: 7,
  september: 8, sept: 8, sep: 8,
  october: 9, oct: 9,
  november: 10, nov: 10,
  december: 11, dec: 11,
};

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6,
  seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
};

/** Days per unit for the "N units ago" / "last N units" rules. */
const UNIT_DAYS: Readonly<Record<string, number>> = { day: 1, week: 7, month: 30 };

const longestFirst = (words: string[]): string => [...words].sort((a, b) => b.length - a.length).join('|');

const MONTH = `(?:${longestFirst(Object.keys(MONTHS))})`;
const WEEKDAY = `(?:${WEEKDAYS.join('|')})`;
const N = `(?:\\d{1,3}|${longestFirst(Object.keys(NUMBER_WORDS))})`;
const ISO = `(?<!\\d)\\d{4}[-/]\\d{1,2}[-/]\\d{1,2}(?!\\d)`;
const YEAR = `(?:19|20)\\d{2}`;
const PREPOSITION = `(?:in|during|around|last|since|before|after|until|from|by)`;

/** "before|until|till|since|after" (+ optional "the") right before an anchor. */
const MODIFIER_BEFORE_ANCHOR = /\b(before|until|till|since|after)\s+(?:the\s+)?$/;

// ---------------------------------------------------------------------------
// Date helpers (local time)
// ---------------------------------------------------------------------------

interface Span {
  start: Date;
  end: Date;
}

/** Local date; setFullYear avoids Date's 0-99 → 1900s year mapping. Day/month overflow normalises. */
function dateAt(year: number, month: number, day: number, h = 0, min = 0, s = 0, ms = 0): Date {
  const d = new Date(2000, 0, 1, h, min, s, ms);
  d.setFullYear(year, month, day);
  return d;
}

const startOfDay = (d: Date): Date => dateAt(d.getFullYear(), d.getMonth(), d.getDate());
const endOfDay = (d: Date): Date => dateAt(d.getFullYear(), d.getMonth(), d.getDate(), 23, 59, 59, 999);
const addDays = (d: Date, n: number): Date => dateAt(d.getFullYear(), d.getMonth(), d.getDate() + n);

/** Start of `first` … end of `last`. */
const days = (first: Date, last: Date): Span => ({ start: startOfDay(first), end: endOfDay(last) });
const oneDay = (d: Date): Span => days(d, d);
const calendarMonth = (year: number, month: number): Span =>
  days(dateAt(year, month, 1), dateAt(year, month + 1, 0));
const calendarYear = (year: number): Span => days(dateAt(year, 0, 1), dateAt(year, 11, 31));
/** "ref − n days … ref", day-aligned. */
const lastDays = (ref: Date, n: number): Span => days(addDays(ref, -n), ref);
/** Monday of the week containing d. */
const mondayOf = (d: Date): Date => addDays(d, -((d.getDay() + 6) % 7));

/** Valid calendar date or null (rejects lookalikes such as 2026-02-30). */
function validDate(year: number, month1: number, day: number): Date | null {
  if (month1 < 1 || month1 > 12 || day < 1) return null;
  const d = dateAt(year, month1 - 1, day);
  return d.getMonth() === month1 - 1 && d.getDate() === day ? d : null;
}

function parseIso(s: string): Date | null {
  const [y, m, d] = s.split(/[-/]/).map(Number);
  return y === undefined || m === undefined || d === undefined ? null : validDate(y, m, d);
}

function parseCount(word: string): number {
  return NUMBER_WORDS[word] ?? Number.parseInt(word, 10);
}

function monthIndex(word: string): number {
  const m = MONTHS[word.replace(/\.$/, '')];
  if (m === undefined) throw new Error(`unknown month ${word}`);
  return m;
}

// ---------------------------------------------------------------------------
// The grammar: one ordered table. The first rule yielding a window wins.
// ---------------------------------------------------------------------------

interface Hit extends Span {
  confidence: number;
  /** The phrase names no year ("in july", "on may 3"): the year was guessed (see TemporalConstraint). */
  impliedYear?: boolean;
}

interface Rule {
  pass: number;
  /** Compiled with flags `gd` so every occurrence and group offsets are available. */
  pattern: RegExp;
  /** Capture group that is the anchor (modifier lookup + matchedText); 0 = whole match. */
  anchor?: number;
  /** Window for one occurrence, or null to skip it (e.g. an invalid date) and try the next. */
  build: (m: RegExpExecArray, ref: Date) => Hit | null;
}

const rx = (source: string): RegExp => new RegExp(source, 'gd');
const group = (m: RegExpExecArray, i: number): string => m[i] ?? '';

const RULES: readonly Rule[] = [
  // Pass 1 — explicit ISO range.
  {
    pass: 1,
    pattern: rx(`(?:\\b(?:between|from)\\s+)?(${ISO})\\s+(?:and|to|until|through)\\s+(${ISO})`),
    build: (m) => {
      const a = parseIso(group(m, 1));
      const b = parseIso(group(m, 2));
      if (!a || !b) return null;
      return { ...(a <= b ? days(a, b) : days(b, a)), confidence: 1.0 };
    },
  },

  // Pass 2 — relative days and "ago".
  {
    pass: 2,
    pattern: rx(`\\b(yesterday|today)\\b`),
    build: (m, ref) => ({ ...oneDay(group(m, 1) === 'today' ? ref : addDays(ref, -1)), confidence: 0.9 }),
  },
  {
    pass: 2,
    pattern: rx(`\\b(?:a\\s+)?(couple|few)\\s+(?:of\\s+)?(day|week|month)s?\\s+ago\\b`),
    build: (m, ref) => {
      const [lo, hi] = group(m, 1) === 'couple' ? [1, 3] : [2, 5];
      const unit = UNIT_DAYS[group(m, 2)] ?? 1;
      return { ...days(addDays(ref, -hi * unit), addDays(ref, -lo * unit)), confidence: 0.6 };
    },
  },
  {
    pass: 2,
    pattern: rx(`\\b(${N})\\s+days?\\s+ago\\b`),
    build: (m, ref) => ({ ...oneDay(addDays(ref, -parseCount(group(m, 1)))), confidence: 0.8 }),
  },
  {
    pass: 2,
    pattern: rx(`\\b(${N})\\s+weeks?\\s+ago\\b`),
    build: (m, ref) => {
      const first = addDays(ref, -7 * parseCount(group(m, 1)));
      return { ...days(first, addDays(first, 6)), confidence: 0.7 };
    },
  },
  {
    pass: 2,
    pattern: rx(`\\b(${N})\\s+months?\\s+ago\\b`),
    build: (m, ref) => {
      const first = addDays(ref, -30 * parseCount(group(m, 1)));
      return { ...days(first, addDays(first, 29)), confidence: 0.6 };
    },
  },
  {
    pass: 2,
    pattern: rx(`\\b(${N})\\s+years?\\s+ago\\b`),
    build: (m, ref) => ({ ...calendarYear(ref.getFullYear() - parseCount(group(m, 1))), confidence: 0.7 }),
  },

  // Pass 3 — last/this week, month, year; last N units; last weekend/weekday.
  {
    pass: 3,
    pattern: rx(`\\b(?:last|past|previous)\\s+(${N})\\s+(day|week|month)s?\\b`),
    build: (m, ref) => ({
      ...lastDays(ref, parseCount(group(m, 1)) * (UNIT_DAYS[group(m, 2)] ?? 1)),
      confidence: 0.8,
    }),
  },
  {
    pass: 3,
    pattern: rx(`\\blast\\s+week\\b`),
    build: (_m, ref) => {
      const monday = addDays(mondayOf(ref), -7);
      return { ...days(monday, addDays(monday, 6)), confidence: 0.9 };
    },
  },
  {
    pass: 3,
    pattern: rx(`\\bthis\\s+week\\b`),
    build: (_m, ref) => ({ ...days(mondayOf(ref), ref), confidence: 0.9 }),
  },
  {
    pass: 3,
    pattern: rx(`\\blast\\s+month\\b`),
    build: (_m, ref) => ({ ...calendarMonth(ref.getFullYear(), ref.getMonth() - 1), confidence: 0.9 }),
  },
  {
    pass: 3,
    pattern: rx(`\\bthis\\s+month\\b`),
    build: (_m, ref) => ({ ...days(dateAt(ref.getFullYear(), ref.getMonth(), 1), ref), confidence: 0.9 }),
  },
  {
    pass: 3,
    pattern: rx(`\\blast\\s+year\\b`),
    build: (_m, ref) => ({ ...calendarYear(ref.getFullYear() - 1), confidence: 0.9 }),
  },
  {
    pass: 3,
    pattern: rx(`\\bthis\\s+year\\b`),
    build: (_m, ref) => ({ ...days(dateAt(ref.getFullYear(), 0, 1), ref), confidence: 0.9 }),
  },
  {
    pass: 3,
    pattern: rx(`\\blast\\s+weekend\\b`),
    build: (_m, ref) => {
      const saturday = addDays(ref, -((ref.getDay() + 1) % 7 || 7)); // strictly before ref
      return { ...days(saturday, addDays(saturday, 1)), confidence: 0.9 };
    },
  },
  {
    pass: 3,
    pattern: rx(`\\blast\\s+(${WEEKDAY})\\b`),
    build: (m, ref) => {
      const wd = WEEKDAYS.indexOf(group(m, 1) as (typeof WEEKDAYS)[number]);
      return { ...oneDay(addDays(ref, -((ref.getDay() - wd + 7) % 7 || 7))), confidence: 0.9 };
    },
  },

  // Pass 4 — a single ISO date.
  {
    pass: 4,
    pattern: rx(`(${ISO})`),
    build: (m) => {
      const d = parseIso(group(m, 1));
      return d ? { ...oneDay(d), confidence: 1.0 } : null;
    },
  },

  // Pass 5 — a day of a named month with its year ("3 june, 2023", "june 3rd 2023"): one day.
  {
    pass: 5,
    pattern: rx(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH})\\b\\.?,?\\s+(${YEAR})(?!\\d)`),
    build: (m) => {
      const d = validDate(Number(group(m, 3)), monthIndex(group(m, 2)) + 1, Number(group(m, 1)));
      return d ? { ...oneDay(d), confidence: 1.0 } : null;
    },
  },
  {
    pass: 5,
    pattern: rx(`\\b(${MONTH})\\b\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(${YEAR})(?!\\d)`),
    build: (m) => {
      const d = validDate(Number(group(m, 3)), monthIndex(group(m, 1)) + 1, Number(group(m, 2)));
      return d ? { ...oneDay(d), confidence: 1.0 } : null;
    },
  },

  // Pass 6 — month names and years.
  {
    pass: 6,
    pattern: rx(`\\b(${MONTH})\\b\\.?,?\\s+(${YEAR})(?!\\d)`),
    build: (m) => ({ ...calendarMonth(Number(group(m, 2)), monthIndex(group(m, 1))), confidence: 0.9 }),
  },
  {
    pass: 6,
    pattern: rx(`\\b${PREPOSITION}\\s+(${MONTH})\\b(?!\\.?,?\\s+${YEAR}(?!\\d))`),
    anchor: 1,
    build: (m, ref) => {
      const month = monthIndex(group(m, 1));
      const year = month <= ref.getMonth() ? ref.getFullYear() : ref.getFullYear() - 1;
      return { ...calendarMonth(year, month), confidence: 0.6, impliedYear: true };
    },
  },
  {
    pass: 6,
    pattern: rx(`\\b${PREPOSITION}\\s+(${YEAR})(?![-/\\d])`),
    anchor: 1,
    build: (m) => ({ ...calendarYear(Number(group(m, 1))), confidence: 0.7 }),
  },

  // Pass 7 — vague periods.
  {
    pass: 7,
    pattern: rx(`\\b(?:last|previous)\\s+sprint\\b`),
    build: (_m, ref) => ({ ...days(addDays(ref, -28), addDays(ref, -14)), confidence: 0.5 }),
  },
  {
    pass: 7,
    pattern: rx(`\\b(?:this|current)\\s+sprint\\b`),
    build: (_m, ref) => ({ ...lastDays(ref, 14), confidence: 0.5 }),
  },
  {
    pass: 7,
    pattern: rx(`\\b(?:recently|lately)\\b`),
    build: (_m, ref) => ({ ...lastDays(ref, 14), confidence: 0.4 }),
  },
];

// ---------------------------------------------------------------------------
// Modifiers and chrono fallback
// ---------------------------------------------------------------------------

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
    return applyModifier({ ...days(first, last), confidence: exact ? 1.0 : 0.8, ...(r.start.isCertain('year') ? {} : { impliedYear: true }) }, matched, prefix, ref);
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

