/**
 * The action hook reads replacements stated in words over a whole memory folder when it builds its
 * trigger index, in one go. A folder of memories that each say the same things are gone must not
 * hold the hook for seconds: a memory that would replace more than a few others replaces none, so
 * it is read no further than that, and only memories with a word of what is gone are compared.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote, statedReplacements } from '../../core/note/index.js';

const memories = (n: number, gone: (i: number) => string) =>
  Array.from({ length: n }, (_, i) =>
    parseNote(
      `---\nname: tool-${i}\ndescription: tool ${i}\ntype: reference\n---\nWe replaced ${gone(i)} with \`tool${i}\`. Uses \`alpha run\` and \`gamma go\`.\n`,
      `documents/tool-${i}.md`,
      'documents',
    ),
  );

describe('replacements stated in words over a large memory folder', () => {
  it('are read quickly when every memory says the same things are gone', () => {
    const notes = memories(2000, () => '`alpha beta` and `gamma delta`');
    const t = Date.now();
    expect(statedReplacements(notes)).toEqual([]);
    expect(Date.now() - t).toBeLessThan(3000);
  });

  it('and when none has a word of what another says is gone', () => {
    const notes = memories(2000, (i) => `\`alpha${i} beta${i}\` and \`gamma${i} delta${i}\``);
    const t = Date.now();
    expect(statedReplacements(notes)).toEqual([]);
    expect(Date.now() - t).toBeLessThan(3000);
  });
});
