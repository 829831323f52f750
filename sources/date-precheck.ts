/**
 * Cheap pre-check for date phrases, kept apart from the grammar so date-free queries never load
 * chrono-node. Every phrase extractTemporal can accept contains a digit, a month word, or one of
 * these keywords (extractTemporal gates on this too, so "true for every match" holds by construction).
 */
const MAY_CONTAIN_DATE =
  /\d|\b(?:yesterday|today|ago|last|past|previous|week|month|year|sprint|recently|lately|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;

/** False means extractTemporal would certainly return null; true only means "maybe". Non-strings → false. */
export function mayContainDate(text: string): boolean {
  return typeof text === 'string' && MAY_CONTAIN_DATE.test(text);
}
