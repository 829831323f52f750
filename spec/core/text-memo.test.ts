/**
 * What a note's text gives every query is kept between recalls of one process (the recall server),
 * found by the note's key and kept only while the text is the same.
 */
import { describe, it, expect } from '@jest/globals';
import { textMemo } from '../../core/text-memo.js';

describe('textMemo', () => {
  it('computes a key and text once, and again when the text changes', () => {
    const seen: string[] = [];
    const upper = textMemo((t) => {
      seen.push(t);
      return t.toUpperCase();
    });
    expect(upper('a', 'pool size')).toBe('POOL SIZE');
    expect(upper('a', 'pool size')).toBe('POOL SIZE');
    expect(seen).toEqual(['pool size']);
    // An edited note under the same key is read again, never answered from what it used to say.
    expect(upper('a', 'lock timeout')).toBe('LOCK TIMEOUT');
    expect(upper('a', 'lock timeout')).toBe('LOCK TIMEOUT');
    expect(seen).toEqual(['pool size', 'lock timeout']);
    // Another note with the same text has its own entry.
    expect(upper('b', 'lock timeout')).toBe('LOCK TIMEOUT');
    expect(seen).toHaveLength(3);
  });

  it('with maxChars, reads and compares only the start of a text', () => {
    const seen: string[] = [];
    const head = textMemo((t) => {
      seen.push(t);
      return t;
    }, 4);
    expect(head('a', 'abcdef')).toBe('abcd');
    // Past the characters read, another text is the same text.
    expect(head('a', 'abcdxyz')).toBe('abcd');
    expect(seen).toEqual(['abcd']);
    expect(head('a', 'abzz')).toBe('abzz');
    expect(seen).toEqual(['abcd', 'abzz']);
  });

  it('keeps at most its limit, letting the least recently used go first', () => {
    let computed = 0;
    const len = textMemo(
      (t) => {
        computed += 1;
        return t.length;
      },
      Infinity,
      2,
    );
    len('a', 'one');
    len('b', 'three');
    len('a', 'one'); // a is now the most recently used
    len('c', 'seven'); // b goes
    expect(computed).toBe(3);
    len('a', 'one');
    expect(computed).toBe(3);
    len('b', 'three');
    expect(computed).toBe(4);
  });
});
