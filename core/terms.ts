/**
 * Query-term arithmetic shared by the OOD gate, arm floors, fuzzy cache, gap log and temporal
 * ranking. Pure functions.
 */

/**
 * Function words that carry no topic. Kept short on purpose: anything that can name a topic
 * ("server", "test", "build") stays. Same family as the reference's list.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the is are was were be been being do does did done to of in on at for with and or not no nor ' +
    'how what when where which who whom whose why our ours we us i me you your yours it its they them their ' +
    'this that these those there here from by as into onto over under again still now then than ' +
    'can could should would may might will shall must am get got gets use used uses using my mine ' +
    'he she his her him if so but just also very any some all about after before while'
  ).split(' '),
);

const TERM_RE = /[a-z0-9][a-z0-9_-]+/g;
/**
 * Longest content term (longer ones are cut at a word boundary): a 50 KB hyphen-joined token would
 * otherwise be split into thousands of parts for every candidate it is compared with.
 */
const MAX_TERM_CHARS = 64;

function capContentTerm(t: string): string {
  if (t.length <= MAX_TERM_CHARS) return t;
  const cut = t.slice(0, MAX_TERM_CHARS);
  const sep = Math.max(cut.lastIndexOf('-'), cut.lastIndexOf('_'));
  return (sep >= 3 ? cut.slice(0, sep) : cut).replace(/[-_]+$/, '');
}

/**
 * Content terms: lower-cased ASCII words of 2+ characters (hyphen/underscore kept, at most 64),
 * stopwords dropped, deduped in order. Two characters keep technical words ("s3", "ci", "db", "ui");
 * the function words of that length are in STOPWORDS.
 */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of (text ?? '').toLowerCase().matchAll(TERM_RE)) {
    const t = capContentTerm(m[0]);
    if (STOPWORDS.has(t) || seen.has(t)) continue;
    seen.add(t);
    out.push(t);
  }
  return out;
}

/**
 * Whether `term` occurs in `haystack` (already lower-cased) at the start of a word: "pool" matches
 * "pools" and "connection-pool" but not "spool"; "kill-server" also matches when all its parts of 3+
 * characters occur ("kill server").
 */
export function termOccurs(term: string, haystack: string): boolean {
  if (wordPrefixIndex(haystack, term) >= 0) return true;
  const parts = term.split(/[-_]/).filter((p) => p.length >= 3);
  return parts.length > 1 && parts.every((p) => wordPrefixIndex(haystack, p) >= 0);
}

function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
}

function wordPrefixIndex(haystack: string, term: string): number {
  let from = 0;
  for (;;) {
    const i = haystack.indexOf(term, from);
    if (i < 0) return -1;
    if (i === 0 || !isWordChar(haystack.charCodeAt(i - 1))) return i;
    from = i + 1;
  }
}

/**
 * Fraction of the query's content terms found in the text (word-prefix match, see termOccurs).
 * A query with no content terms covers everything (1.0), so a vacuous query is never gated.
 */
export function termCoverage(queryTerms: readonly string[], text: string): number {
  if (queryTerms.length === 0) return 1;
  const hay = text.toLowerCase();
  let hit = 0;
  for (const t of queryTerms) if (termOccurs(t, hay)) hit += 1;
  return hit / queryTerms.length;
}

/** Jaccard similarity of two term sets: both empty → 1, one empty → 0. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter += 1;
  return inter / (a.size + b.size - inter);
}

/** Rough token estimate (1 token ≈ 4 characters), at least 1. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.floor(text.length / 4));
}
