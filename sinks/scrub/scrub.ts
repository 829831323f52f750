/**
 * Secret scrubbing for everything recall writes to disk that came from a prompt or a note (recall
 * log, cache entries and keys, knowledge gaps, follow-up records, breadcrumbs, hook logs) and for
 * any other writer that wants it (e.g. a tool that saves a learning). Each secret found (see
 * scrub/detect.ts: secretlint's recommended rules, recall's own rules, an entropy rule) is replaced by
 * `***REDACTED***`; the words around it are kept, so a log line still says what was asked.
 *
 * Fast enough for the hook path: a 10 kB prompt costs about a millisecond of CPU (see README, "What
 * is scrubbed", for the figures measured).
 */
import { findSecrets } from './detect.js';
import { visible } from '../safe-text.js';
import { stemOf } from '../../core/stems.js';

export { findSecrets, shannonEntropy, type SecretRange } from './detect.js';

export const REDACTED = '***REDACTED***';

/**
 * The last text scrubbed and its result: one recall scrubs its query for the log, the request, the
 * gap log, the follow-up record and the cache (key, entry, index), so the work is done once.
 */
let last: { text: string; out: string } | null = null;

/** `text` without invisible characters (safe-text's visible()) and with every secret found replaced by `***REDACTED***`. */
export function scrub(text: string): string {
  if (!text) return text;
  if (last && last.text === text) return last.out;
  // Invisible characters go first: a zero-width space inside a token would hide it from every rule.
  const shown = visible(text);
  const found = findSecrets(shown);
  let out = shown;
  if (found.length > 0) {
    out = '';
    let at = 0;
    for (const r of found) {
      out += shown.slice(at, r.start) + REDACTED;
      at = r.end;
    }
    out += shown.slice(at);
  }
  if (text.length >= 256) last = { text, out }; // short strings cost less to scrub than to compare
  return out;
}

/** A copy of a JSON-like value with scrub() applied to every string in it (keys kept). */
export function scrubStrings<T>(value: T): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrubStrings(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = scrubStrings(v);
    return out as T;
  }
  return value;
}

/** Shortest piece of a secret searched for in text derived from it (shorter pieces are common words). */
const DERIVED_PIECE_MIN = 4;

/**
 * scrubStrings(value), and also every piece of a secret found in `source` wherever it reappears in
 * `value`, in any case. Text derived from a prompt (an abstention reason that quotes the prompt's
 * words, lowercased and split) no longer looks like a secret on its own, so it is cleaned by what
 * was found in the prompt it came from.
 */
export function scrubAlong<T>(value: T, source: string): T {
  const shown = visible(source);
  const pieces = new Set<string>();
  for (const r of findSecrets(shown))
    for (const p of shown.slice(r.start, r.end).split(/[^\p{L}\p{N}]+/u)) if (p.length >= DERIVED_PIECE_MIN) pieces.add(p.toLowerCase());
  const scrubbed = scrubStrings(value);
  if (pieces.size === 0) return scrubbed;
  const escaped = [...pieces].sort((a, b) => b.length - a.length).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(escaped.join('|'), 'giu');
  const clean = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(re, REDACTED);
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, clean(x)]));
    return v;
  };
  return clean(scrubbed) as T;
}

/** An evidence line of recall's own: a lower-case label and what matched (`token:main.go`, `word:pool`). */
const EVIDENCE_RE = /^([a-z][a-z-]{0,20}):([\s\S]*)$/;

/** The last source read for secret words, and what was found: one call's evidence lines share it. */
let lastWords: { source: string; re: RegExp | null } | null = null;

/**
 * The words of the secrets in `source` (split at punctuation and at a capital inside a word, as the
 * matcher splits `correct-horse-battery` and `CorrectHorse`) and their stems, as one pattern: match
 * evidence holds a word as its stem (`batteri`), which no literal piece of the secret contains.
 */
function secretWordsRe(source: string): RegExp | null {
  if (lastWords && lastWords.source === source) return lastWords.re;
  const shown = visible(source);
  const words = new Set<string>();
  for (const r of findSecrets(shown))
    for (const w of shown.slice(r.start, r.end).split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u)) {
      const folded = w.toLowerCase();
      for (const f of [folded, stemOf(folded)]) if (f.length >= DERIVED_PIECE_MIN) words.add(f);
    }
  const escaped = [...words].sort((a, b) => b.length - a.length).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = escaped.length > 0 ? new RegExp(escaped.join('|'), 'giu') : null;
  lastWords = { source, re };
  return re;
}

/**
 * A piece of match evidence with its label kept and what matched scrubbed, along `source` (the text
 * it was taken from: a secret's pieces go wherever they appear, and so do its words as the matcher
 * stems them). Scrubbed whole, `token:main.go` reads as a credential named "token" and every token
 * the matcher found was hidden from the trace and the log; the label is recall's own word, never a secret.
 */
export function scrubEvidence(why: string, source = ''): string {
  const m = EVIDENCE_RE.exec(why);
  const clean = scrubAlong(m ? m[2]! : why, source);
  const re = source ? secretWordsRe(source) : null;
  const value = re ? clean.replace(re, REDACTED) : clean;
  return m ? `${m[1]}:${value}` : value;
}
