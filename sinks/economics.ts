/**
 * Token economics of a recall (the reference's economics block, kept compatible): what reading a learning costs (R, read tokens)
 * against what rediscovering it would have cost (D, discovery tokens), per note and rolled up.
 *
 * Pure arithmetic, except the discovery fallback that stats (never reads) the note's source file;
 * the stat is injectable. Lengths and prefixes follow Python semantics (code points, not UTF-16
 * units) because the numbers must match the reference byte for byte.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Note } from '../core/note/index.js';

/** Characters per token in the reference's estimate (`len(text) // 4`). */
export const CHARS_PER_TOKEN = 4;

/**
 * Discovery cost by `learning_type` when the note declares none and has no source file: the
 * reference's guesses of how long each kind of finding takes to rediscover (a bug hunt costs most).
 */
export const DISCOVERY_BY_TYPE: Readonly<Record<string, number>> = {
  'bug-fix': 3000,
  'anti-pattern': 2500,
  correction: 2000,
  pattern: 1500,
  decision: 1200,
};

/** Discovery cost of a note of unknown type: the reference's default, same as `pattern`. */
export const DEFAULT_DISCOVERY_TOKENS = 1500;

/** Glyph of a learning type the active mode does not know (U+00B7 MIDDLE DOT, as in the reference). */
export const UNKNOWN_GLYPH = '\u00b7';

/** Size in bytes of a path, or null when it cannot be stat'ed. Must never throw. */
export type StatSize = (absPath: string) => number | null;

export interface EconomicsRow {
  discovery_tokens: number;
  read_tokens: number;
  savings_pct: number;
  glyph: string;
  /**
   * Present (true) when D is only the learning-type guess: the note declares no `discovery_tokens`
   * and has no source file to measure. A person reading "D:1500 → R:87 (-94%)" takes it for a
   * measurement, so the markdown block shows no figure for such a note (JSON keeps the row, marked).
   */
  estimated?: true;
}

export interface EconomicsBlock {
  count: number;
  read_tokens: number;
  discovery_tokens: number;
  saved_tokens: number;
  savings_pct: number;
}

export interface EconomicsOptions {
  /** Learning type (lower-cased) → glyph, from the active mode (see loadGlyphs). */
  glyphs: ReadonlyMap<string, string>;
  /** Home directory used to expand a `~/` source path. */
  home: string;
  /** Injected stat (default: fs.statSync, errors → null). */
  statSize?: StatSize;
}

/** Length in code points, like Python's `len(str)`. Empty string → 0. */
export function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** The first `n` code points, like Python's `text[:n]`. Empty string or n ≤ 0 → ''. */
export function pyHead(text: string, n: number): string {
  if (n <= 0) return '';
  if (text.length <= n) return text;
  return Array.from(text).slice(0, n).join('');
}

/**
 * Python 3 `round(x)`: to the nearest integer, exact halves to the even neighbour
 * (12.5 → 12, 13.5 → 14, −12.5 → −12). Non-finite input is returned unchanged.
 */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const floor = Math.floor(x);
  const diff = x - floor; // exact for every double below 2^52
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** R: `max(1, len(chunkText) // 4)` — an empty note still costs one token. */
export function readTokens(note: Pick<Note, 'chunkText'>): number {
  return Math.max(1, Math.floor(pyLen(note.chunkText) / CHARS_PER_TOKEN));
}

/** Default StatSize: fs.statSync, any error (missing file, permissions) → null. */
export const statSizeFs: StatSize = (absPath) => {
  try {
    const st = statSync(absPath, { throwIfNoEntry: false });
    return st ? st.size : null;
  } catch {
    return null;
  }
};

/** `provenance.source_path` from the frontmatter, `~/` expanded with `home`; null when absent or blank. */
export function provenanceSourcePath(frontmatter: Record<string, unknown>, home: string): string | null {
  const prov = frontmatter['provenance'];
  if (!prov || typeof prov !== 'object' || Array.isArray(prov)) return null;
  const raw = (prov as Record<string, unknown>)['source_path'];
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const p = raw.trim();
  return p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

/**
 * D: the note's `discovery_tokens`; else the size of its `provenance.source_path` file // 4 when
 * that file exists and is non-empty (stat only; errors ignored); else the learning-type estimate
 * (DISCOVERY_BY_TYPE); else DEFAULT_DISCOVERY_TOKENS.
 */
export function discoveryTokens(
  note: Pick<Note, 'discoveryTokens' | 'frontmatter' | 'learningType'>,
  home: string,
  statSize: StatSize = statSizeFs,
): number {
  return discovery(note, home, statSize).tokens;
}

/** D and whether it was measured (declared, or the source file's size) rather than guessed from the type. */
function discovery(
  note: Pick<Note, 'discoveryTokens' | 'frontmatter' | 'learningType'>,
  home: string,
  statSize: StatSize,
): { tokens: number; measured: boolean } {
  if (note.discoveryTokens !== null) return { tokens: note.discoveryTokens, measured: true };
  const src = provenanceSourcePath(note.frontmatter, home);
  if (src !== null) {
    let size: number | null;
    try {
      size = statSize(src);
    } catch {
      size = null;
    }
    if (size !== null && size > 0) return { tokens: Math.floor(size / CHARS_PER_TOKEN), measured: true };
  }
  return { tokens: DISCOVERY_BY_TYPE[note.learningType.toLowerCase()] ?? DEFAULT_DISCOVERY_TOKENS, measured: false };
}

/** `round((D − R) / D · 100)` with banker's rounding; 0 when D = 0. Negative when reading costs more. */
export function savingsPct(discovery: number, read: number): number {
  if (discovery === 0) return 0;
  return roundHalfEven(((discovery - read) / discovery) * 100);
}

/** Glyph of a learning type (looked up lower-cased); unknown or empty type → UNKNOWN_GLYPH. */
export function glyphFor(learningType: string, glyphs: ReadonlyMap<string, string>): string {
  return glyphs.get(learningType.toLowerCase()) ?? UNKNOWN_GLYPH;
}

/** The per-note economics row `{discovery_tokens, read_tokens, savings_pct, glyph}`. */
export function economicsRow(note: Note, opts: EconomicsOptions): EconomicsRow {
  const d = discovery(note, opts.home, opts.statSize ?? statSizeFs);
  const r = readTokens(note);
  const row: EconomicsRow = {
    discovery_tokens: d.tokens,
    read_tokens: r,
    savings_pct: savingsPct(d.tokens, r),
    glyph: glyphFor(note.learningType, opts.glyphs),
  };
  if (!d.measured) row.estimated = true;
  return row;
}

/** Roll-up of rows. No rows → every field 0 (savings_pct 0 because ΣD = 0). */
export function economicsBlock(rows: readonly EconomicsRow[]): EconomicsBlock {
  let read = 0;
  let discovery = 0;
  for (const row of rows) {
    read += row.read_tokens;
    discovery += row.discovery_tokens;
  }
  return {
    count: rows.length,
    read_tokens: read,
    discovery_tokens: discovery,
    saved_tokens: discovery - read,
    savings_pct: savingsPct(discovery, read),
  };
}

/** Roll-up straight from notes (rows computed with economicsRow). No notes → all zeros. */
export function blockEconomics(
  notes: readonly Note[],
  glyphs: ReadonlyMap<string, string>,
  home: string,
  statSize?: StatSize,
): EconomicsBlock {
  return economicsBlock(notes.map((n) => economicsRow(n, { glyphs, home, statSize })));
}
