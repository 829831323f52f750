/**
 * The words an action and a learning are compared by. Pure.
 *
 * - a token: a run of non-space text as written, lower-cased, with surrounding punctuation and
 *   quotes cut off (`proxy_read_timeout`, `--paginate`, `@rollup/rollup-linux-x64-gnu`, `kill-server`);
 * - a compound: a token that reads as code, not prose (it holds `_`, `-`, `.`, `/`, `@`, `=`, a digit
 *   next to letters, or an inner capital): such a token names one thing, so sharing it is strong
 *   evidence; plain words are only evidence in proportion to how rare they are;
 * - a stem: each word of a token (split at punctuation and camelCase), Porter-stemmed as the index does.
 */
import { stemOf } from '../../core/stems.js';
import { STOPWORDS } from '../../core/terms.js';

/** Shortest compound worth matching on its own (`-f`, `a.b` say nothing). */
const MIN_COMPOUND_CHARS = 5;

/** Cut quotes, brackets and sentence punctuation off both ends of a token. */
export function trimToken(raw: string): string {
  return raw.replace(/^[\s"'`([{<,;:!?*]+|[\s"'`)\]}>,;:!?*.]+$/g, '');
}

const CODE_LIKE = /[_\-./@=:]|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]/;

/** Whether a token (as written, before lower-casing) reads as code: an identifier, flag, path or key. */
export function isCompound(token: string): boolean {
  return token.length >= MIN_COMPOUND_CHARS && CODE_LIKE.test(token) && /[A-Za-z]{2}/.test(token);
}

/** Words of a token: split at punctuation and camelCase humps, lower-cased. */
export function tokenWords(token: string): string[] {
  return (
    token
      // A plural acronym is one word (`JWTs`, `URLs`), not `JW` and `Ts`.
      .replace(/([A-Z]{2,})s(?![a-z])/g, (_m, a: string) => `${a.toLowerCase()}s`)
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 2 && !/^\d+$/.test(w) && !STOPWORDS.has(w))
  );
}

/** Tokens of a text as written (trimmed, not lower-cased), up to `max`. */
export function rawTokens(text: string, max = 4000): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[^\s]+/g)) {
    const t = trimToken(m[0]);
    if (t) out.push(t);
    if (out.length >= max) break;
  }
  return out;
}

/**
 * The compound forms of a token: the whole (lower-cased), and for a `key=value` or `key: value`
 * its key, and for a path its last part. `NODE_OPTIONS=--experimental-vm-modules` gives
 * `node_options=--experimental-vm-modules`, `node_options`, `--experimental-vm-modules`.
 */
export function compoundsOf(token: string): string[] {
  if (!isCompound(token)) return [];
  const lower = token.toLowerCase();
  const out = new Set<string>([lower.replace(/^-+(?=[a-z])/, '--')]);
  for (const part of lower.split(/[=:,]+/)) {
    const p = trimToken(part);
    if (isCompound(p)) out.add(p);
  }
  const last = lower.split('/').pop() ?? '';
  if (last !== lower && isCompound(last)) out.add(last);
  // The identifiers inside code (`{new Date(x).toLocaleString()}` names `toLocaleString`;
  // `Date.prototype.toLocaleString` names it too), whole and by their dotted parts.
  // Optional chaining and a non-null assertion reach the same member (`ldClient?.variation` is `ldClient.variation`).
  for (const m of token.matchAll(/[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)*/g)) {
    const name = m[0].replace(/[?!]\./g, '.');
    for (const part of [name, ...name.split('.')]) if (isCompound(part) && !part.includes('.')) out.add(part.toLowerCase());
    if (name.includes('.') && isCompound(name)) out.add(name.toLowerCase());
    // What a member access reaches through (`process.env` of `process.env.SLACK_URL`, `req.body` of
    // `req.body.email`): what a note names is often the object, not the one field a call reads.
    const segments = name.split('.');
    for (let k = 2; k < segments.length && k <= 3; k += 1) {
      const prefix = segments.slice(0, k).join('.');
      if (isCompound(prefix)) out.add(prefix.toLowerCase());
    }
  }
  // A flag is the same flag with or without its value, with one dash or two (`-f` aside).
  for (const c of [...out]) if (c.startsWith('--')) out.add(c.replace(/=.*$/, ''));
  return [...out].filter((c) => c.length >= MIN_COMPOUND_CHARS);
}

/** Distinct stems of a text's words (camelCase and snake_case split), stopwords and numbers left out. */
export function stemsOf(text: string, maxChars = 8000): Set<string> {
  const out = new Set<string>();
  for (const tok of rawTokens(text.slice(0, maxChars))) for (const w of tokenWords(tok)) out.add(stemOf(w));
  return out;
}

/**
 * Adjacent word pairs of a text, as stems joined by a space (`connection pool` → `connect pool`),
 * within runs of plain words: a sentence's punctuation breaks a run, stopwords are passed over.
 */
export function stemPairs(text: string, maxChars = 8000): Set<string> {
  const out = new Set<string>();
  for (const run of text.slice(0, maxChars).split(/[.,;:!?()[\]{}"`]+|\s[-—]\s/)) {
    let prev = '';
    for (const tok of rawTokens(run)) {
      for (const w of tokenWords(tok)) {
        const s = stemOf(w);
        if (prev && prev !== s) out.add(`${prev} ${s}`);
        prev = s;
      }
    }
  }
  return out;
}

/** A setting written as `key: value` or `key=value`, quoted or not (`origin: "*"`, `Access-Control-Allow-Origin: *`). */
// The key is bounded: an unbroken 8,000-character word must not cost a scan per character.
const SETTING_RE = /([A-Za-z][\w.-]{0,80})["']?[ \t]*[:=][ \t]*["']?([^\s,;"'(){}[\]]{1,40})/g;

/**
 * The settings a text writes, each as one token `key=value` with the key's last word (`origin: "*"`
 * and `Access-Control-Allow-Origin: *` are both `origin=*`): a call that sets what a note names,
 * to the same value, writes the same token however each quotes or spells the key.
 */
export function settingTokens(text: string, max = 200): string[] {
  const out: string[] = [];
  for (const m of text.slice(0, 8000).matchAll(SETTING_RE)) {
    const key = m[1]!.split(/[-_.]/).pop()!.toLowerCase();
    const value = m[2]!.toLowerCase();
    if (key.length >= 3 && !value.startsWith('/') && !value.includes(':')) out.push(`${key}=${value}`);
    if (out.length >= max) break;
  }
  return out;
}
