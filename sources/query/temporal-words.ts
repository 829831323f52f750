/**
 * The vocabulary and calendar arithmetic of the temporal grammar: month, weekday and number words,
 * the regex fragments built from them, and local-time day, month and year windows.
 */

/** Month words (0-based month index). `may` is only ever the full word. */
export const MONTHS: Readonly<Record<string, number>> = {
  january: 0,
  jan: 0,
  february: 1,
  feb: 1,
  march: 2,
  mar: 2,
  april: 3,
  apr: 3,
  may: 4,
  june: 5,
  jun: 5,
  july: 6,
  jul: 6,
  august: 7,
  aug: 7,
  september: 8,
  sept: 8,
  sep: 8,
  october: 9,
  oct: 9,
  november: 10,
  nov: 10,
  december: 11,
  dec: 11,
};

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};

/** Days per unit for the "N units ago" / "last N units" rules. */
export const UNIT_DAYS: Readonly<Record<string, number>> = { day: 1, week: 7, month: 30 };

export const longestFirst = (words: string[]): string => [...words].sort((a, b) => b.length - a.length).join('|');

export const MONTH = `(?:${longestFirst(Object.keys(MONTHS))})`;
export const WEEKDAY = `(?:${WEEKDAYS.join('|')})`;
export const N = `(?:\\d{1,3}|${longestFirst(Object.keys(NUMBER_WORDS))})`;
export const ISO = `(?<!\\d)\\d{4}[-/]\\d{1,2}[-/]\\d{1,2}(?!\\d)`;
export const YEAR = `(?:19|20)\\d{2}`;
export const PREPOSITION = `(?:in|during|around|last|since|before|after|until|from|by)`;

/** "before|until|till|since|after" (+ optional "the") right before an anchor. */
export const MODIFIER_BEFORE_ANCHOR = /\b(before|until|till|since|after)\s+(?:the\s+)?$/;

// ---------------------------------------------------------------------------
// Date helpers (local time)
// ---------------------------------------------------------------------------

export interface Span {
  start: Date;
  end: Date;
}

/** Local date; setFullYear avoids Date's 0-99 → 1900s year mapping. Day/month overflow normalises. */
export function dateAt(year: number, month: number, day: number, h = 0, min = 0, s = 0, ms = 0): Date {
  const d = new Date(2000, 0, 1, h, min, s, ms);
  d.setFullYear(year, month, day);
  return d;
}

export const startOfDay = (d: Date): Date => dateAt(d.getFullYear(), d.getMonth(), d.getDate());
export const endOfDay = (d: Date): Date => dateAt(d.getFullYear(), d.getMonth(), d.getDate(), 23, 59, 59, 999);
export const addDays = (d: Date, n: number): Date => dateAt(d.getFullYear(), d.getMonth(), d.getDate() + n);

/** Start of `first` … end of `last`. */
export const days = (first: Date, last: Date): Span => ({ start: startOfDay(first), end: endOfDay(last) });
export const oneDay = (d: Date): Span => days(d, d);
export const calendarMonth = (year: number, month: number): Span => days(dateAt(year, month, 1), dateAt(year, month + 1, 0));
export const calendarYear = (year: number): Span => days(dateAt(year, 0, 1), dateAt(year, 11, 31));
/** "ref − n days … ref", day-aligned. */
export const lastDays = (ref: Date, n: number): Span => days(addDays(ref, -n), ref);
/** Monday of the week containing d. */
export const mondayOf = (d: Date): Date => addDays(d, -((d.getDay() + 6) % 7));

/** Valid calendar date or null (rejects lookalikes such as 2026-02-30). */
export function validDate(year: number, month1: number, day: number): Date | null {
  if (month1 < 1 || month1 > 12 || day < 1) return null;
  const d = dateAt(year, month1 - 1, day);
  return d.getMonth() === month1 - 1 && d.getDate() === day ? d : null;
}

export function parseIso(s: string): Date | null {
  const [y, m, d] = s.split(/[-/]/).map(Number);
  return y === undefined || m === undefined || d === undefined ? null : validDate(y, m, d);
}

export function parseCount(word: string): number {
  return NUMBER_WORDS[word] ?? Number.parseInt(word, 10);
}

export function monthIndex(word: string): number {
  const m = MONTHS[word.replace(/\.$/, '')];
  if (m === undefined) throw new Error(`unknown month ${word}`);
  return m;
}
