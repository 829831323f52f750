/**
 * The temporal grammar as one ordered table of rules, grouped into passes: the first rule (in
 * table order) that yields a valid window wins. This order and these patterns follow the Python
 * reference's temporal extraction, so that both find the same window for the same query.
 */
import {
  WEEKDAYS,
  UNIT_DAYS,
  MONTH,
  WEEKDAY,
  N,
  ISO,
  YEAR,
  PREPOSITION,
  Span,
  dateAt,
  addDays,
  days,
  oneDay,
  calendarMonth,
  calendarYear,
  lastDays,
  mondayOf,
  validDate,
  parseIso,
  parseCount,
  monthIndex,
} from './temporal-words.js';

export interface Hit extends Span {
  confidence: number;
  /** The phrase names no year ("in july", "on may 3"): the year was guessed (see TemporalConstraint). */
  impliedYear?: boolean;
}

export interface Rule {
  pass: number;
  /** Compiled with flags `gd` so every occurrence and group offsets are available. */
  pattern: RegExp;
  /** Capture group that is the anchor (modifier lookup + matchedText); 0 = whole match. */
  anchor?: number;
  /** Window for one occurrence, or null to skip it (e.g. an invalid date) and try the next. */
  build: (m: RegExpExecArray, ref: Date) => Hit | null;
}

export const rx = (source: string): RegExp => new RegExp(source, 'gd');
export const group = (m: RegExpExecArray, i: number): string => m[i] ?? '';

export const RULES: readonly Rule[] = [
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
