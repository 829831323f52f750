/**
 * Invisible characters never survive the text functions every sink uses (stripControls, oneLine,
 * terminalSafe, asReferenceBlock, wellFormedJson), and emoji that need a joiner or a selector keep it.
 */
import { describe, it, expect } from '@jest/globals';
import { asReferenceBlock, oneLine, stripControls, terminalSafe, visible, wellFormedJson } from '../../sinks/safe-text.js';
import { HIDDEN_INSTRUCTION, INVISIBLES, asTags, countInvisible } from '../../scripts/hostile/invisible-text.js';

const dirty = `pool ${INVISIBLES.join('')}fix${asTags(HIDDEN_INSTRUCTION)} done`;

describe('visible', () => {
  it('removes every kind of invisible character, tags spelling an instruction included', () => {
    expect(HIDDEN_INSTRUCTION).toHaveLength(74);
    expect(countInvisible(dirty)).toBe(INVISIBLES.length + 74);
    expect(visible(dirty)).toBe('pool fix done');
  });

  it.each([
    ['stripControls', stripControls],
    ['oneLine', oneLine],
    ['terminalSafe', terminalSafe],
    ['asReferenceBlock', asReferenceBlock],
    ['wellFormedJson', (s: string) => JSON.parse(wellFormedJson({ s })).s as string],
  ])('%s lets none through', (_n, f) => {
    const out = f(dirty);
    expect(countInvisible(out)).toBe(0);
    expect(out).toContain('pool fix done');
  });

  it('keeps emoji drawable: joiners between pictographs, a selector after one', () => {
    const keep = ['👩\u200d💻', '👨\u200d👩\u200d👧', '❤\ufe0f', '1\ufe0f\u20e3', '👍🏽', '👩🏽\u200d🚀', '🏳\ufe0f\u200d🌈'];
    for (const e of keep) expect(visible(e)).toBe(e);
  });

  it('drops joiners and selectors that join nothing, and runs of them', () => {
    expect(visible('a\u200db')).toBe('ab');
    expect(visible('❤\ufe0f\ufe0f\ufe0f')).toBe('❤\ufe0f');
    expect(visible('👍\ufe00\ufe01')).toBe('👍');
    expect(visible('👩\u200d\u200d💻')).toBe('👩💻');
    // A subdivision flag is black flag + tags: the tags go, the flag stays.
    expect(visible('🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}')).toBe('🏴');
  });

  it('keeps the joiners that Persian and Indic spelling need, between two letters of those scripts', () => {
    for (const w of ['می\u200cخواهم', 'क्\u200dष', 'ന്\u200d']) expect(visible(w)).toBe(w.endsWith('\u200d') ? w.slice(0, -1) : w);
    expect(visible('a\u200cb')).toBe('ab');
  });

  it('leaves ordinary text, accents, CJK and other scripts alone', () => {
    const s = 'Café naïve — 東京 — مرحبا — שלום — Ελληνικά — ok\ttab\nline';
    expect(visible(s)).toBe(s);
  });
});
