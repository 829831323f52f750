/**
 * Cheap pre-check for date phrases, kept apart from the grammar so date-free queries never load
 * chrono-node (~30 ms). Every phrase extractTemporal can accept contains a date-shaped number, a month
 * word, or one of these keywords (extractTemporal gates on this too, so "true for every match" holds
 * by construction); a bare number such as an error code ("504") does not count.
 */
const MAY_CONTAIN_DATE = new RegExp(
  [
    // Numbers only when date-shaped: years, ISO/slashed dates, ordinals, "<n> days|weeks|…".
    String.raw`\b(?:19|20)\d{2}\b`,
    String.raw`\d{1,4}[-/.]\d{1,2}`,
    String.raw`\b\d{1,2}(?:st|nd|rd|th)\b`,
    String.raw`\b\d+\s*(?:days?|weeks?|months?|years?|d|w)\b`,
    String.raw`\b(?:yesterday|today|ago|last|past|previous|week|month|year|sprint|recently|lately|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`,
  ].join('|'),
  'i',
);

/** False means extractTemporal would certainly return null; true only means "maybe". Non-strings → false. */
export function mayContainDate(text: string): boolean {
  return typeof text === 'string' && MAY_CONTAIN_DATE.test(text);
}
