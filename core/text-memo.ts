/**
 * What a note's text gives every query (its stems, its word pairs), kept between recalls of one
 * process. The recall server answers every prompt of a session from the same KB, but reads each
 * candidate note from its index afresh, as a new object: stemming the same texts again cost each
 * prompt several milliseconds. Entries are found by the note's key and kept only while its text is
 * the same (an edited note is computed again). Pure apart from the cache itself.
 */

/** A function of a note's text, computed once per key and text; at most `limit` texts are kept. */
export function textMemo<T>(limit: number, compute: (text: string) => T): (key: string, text: string) => T {
  const kept = new Map<string, { text: string; value: T }>();
  return (key, text) => {
    const hit = kept.get(key);
    if (hit && hit.text === text) {
      // Most recently used last: the oldest entry is the first to go.
      kept.delete(key);
      kept.set(key, hit);
      return hit.value;
    }
    const value = compute(text);
    kept.delete(key);
    kept.set(key, { text, value });
    if (kept.size > limit) kept.delete(kept.keys().next().value!);
    return value;
  };
}
