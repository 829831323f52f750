/**
 * The query's date phrase ("last week", "in july"): what the lexical arm leaves out, what it keeps
 * at a lower weight, and where a year-less window lands in a KB of older notes.
 */
import type { TemporalConstraint } from '../../core/temporal-constraint.js';

/** The words of the query's date phrase ("in july" → july), for the lexical arm's lower-weighted query. */
export function datePhraseWords(temporal: TemporalConstraint | null): string[] {
  if (!temporal?.matchedText) return [];
  return (temporal.matchedText.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= 3 && !/^(?:in|on|at|last|this|since|before|after|until|till|from|during|around|the)$/.test(w),
  );
}

/** Years a year-less date window may move back to find the KB's notes. */
const MAX_YEARS_BACK = 30;

/**
 * A window whose phrase named no year ("in july") was placed in the latest such month not in the
 * future. When the KB has no note dated inside it, move it back year by year to the latest one that
 * has: a KB of 2023 notes asked about "july" means July 2023. Windows with a year stay as they are.
 */
export function inKbYears(
  c: TemporalConstraint | null,
  hasNotesIn?: (startMs: number, endMs: number) => boolean,
): TemporalConstraint | null {
  if (!c || !c.impliedYear || !hasNotesIn) return c;
  const shift = (d: Date, years: number): Date => {
    const x = new Date(d.getTime());
    x.setFullYear(d.getFullYear() - years);
    return x;
  };
  for (let back = 0; back <= MAX_YEARS_BACK; back += 1) {
    const start = shift(c.start, back);
    const end = shift(c.end, back);
    if (hasNotesIn(start.getTime(), end.getTime())) return back === 0 ? c : { ...c, start, end };
  }
  return c;
}

/**
 * The query minus its date phrase: "last week", "march 2024" say when, not what, so the lexical arm
 * should not rank notes for containing those words (the temporal arm handles the window).
 */
export function withoutDatePhrase(query: string, temporal: TemporalConstraint | null): string {
  if (!temporal || !temporal.matchedText) return query;
  const i = query.toLowerCase().indexOf(temporal.matchedText.toLowerCase());
  return i < 0 ? query : `${query.slice(0, i)} ${query.slice(i + temporal.matchedText.length)}`;
}
