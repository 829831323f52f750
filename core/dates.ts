/**
 * Lenient timestamp parsing for note metadata.
 *
 * Accepts `YYYY-MM-DD`, `YYYY-MM-DD[T ]HH:MM[:SS[.frac]]` with an optional `Z` or `±HH[:]MM` offset,
 * and YAML-style `YYYY-M-D`. Values without an offset are local (naive) times, as in the reference;
 * values with an offset are converted to the instant they name. Anything else yields null.
 */
const ISO_RE = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?\s*$/;

export function parseLooseDate(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value !== 'string') return null;
  const m = ISO_RE.exec(value);
  if (!m) return null;
  const [, y, mo, d, hh, mi, ss, frac, tz] = m;
  const year = Number(y);
  const month = Number(mo) - 1;
  const day = Number(d);
  const hours = hh === undefined ? 0 : Number(hh);
  const minutes = mi === undefined ? 0 : Number(mi);
  const seconds = ss === undefined ? 0 : Number(ss);
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  if (month < 0 || month > 11 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) return null;
  let date: Date;
  if (tz === undefined) {
    date = new Date(year, month, day, hours, minutes, seconds, ms);
    if (date.getFullYear() !== year || date.getMonth() !== month || date.getDate() !== day) return null;
  } else {
    let offsetMin = 0;
    if (tz !== 'Z' && tz !== 'z') {
      const sign = tz.startsWith('-') ? -1 : 1;
      const digits = tz.slice(1).replace(':', '');
      offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
    }
    const utc = Date.UTC(year, month, day, hours, minutes, seconds, ms) - offsetMin * 60_000;
    date = new Date(utc);
    const check = new Date(Date.UTC(year, month, day));
    if (check.getUTCDate() !== day) return null;
  }
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The `ts` of a recall log line: the local time of `nowMs` to the second, as a naive ISO string. */
export const logTimestamp = (nowMs: number): string => toNaiveIso(new Date(Math.floor(nowMs / 1000) * 1000));

/** Naive local ISO string like Python's `datetime.isoformat()` (no offset, microseconds only when non-zero). */
export function toNaiveIso(date: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const base = `${p(date.getFullYear(), 4)}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(
    date.getMinutes(),
  )}:${p(date.getSeconds())}`;
  const ms = date.getMilliseconds();
  if (ms === 0) return base;
  return `${base}.${ms === 999 ? '999999' : `${p(ms, 3)}000`}`;
}

export const DAY_MS = 86_400_000;
