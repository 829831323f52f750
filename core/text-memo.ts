/**
 * What a note's text gives every query (its stems, its word pairs), kept between recalls of one
 * process. The recall server answers every prompt of a session from the same KB, but reads each
 * candidate note from its index afresh, as a new object: stemming the same texts again cost each
 * prompt several milliseconds. Entries are found by the note's key and kept only while its text is
 * the same (an edited note is computed again), compared by a digest so that a long note's text is
 * not kept twice. Pure apart from the cache itself.
 */
import { createHash } from 'node:crypto';

/** Notes whose readings are kept, per memo: a large KB's candidate windows over a session. */
const KEPT_NOTES = 4096;

/**
 * A function of a note's text, computed once per key and text; at most `limit` texts are kept. With
 * `maxChars`, only the text's first `maxChars` characters are read, by the function and the digest.
 */
export function textMemo<T>(compute: (text: string) => T, maxChars = Infinity, limit = KEPT_NOTES): (key: string, text: string) => T {
  const kept = new Map<string, { digest: string; value: T }>();
  return (key, whole) => {
    const text = whole.length > maxChars ? whole.slice(0, maxChars) : whole;
    const digest = createHash('sha1').update(text).digest('base64');
    const hit = kept.get(key);
    if (hit && hit.digest === digest) {
      // Most recently used last: the oldest entry is the first to go.
      kept.delete(key);
      kept.set(key, hit);
      return hit.value;
    }
    const value = compute(text);
    kept.delete(key);
    kept.set(key, { digest, value });
    if (kept.size > limit) kept.delete(kept.keys().next().value!);
    return value;
  };
}
