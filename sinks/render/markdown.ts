/**
 * `--format markdown` (the reference's block, kept compatible): the block injected into an agent's context.
 *
 * ```
 * ## Prior learnings relevant to `<query[:80]>`[ (field: NAME)][ — N learnings, ~R tok injected, est ~S tok saved]
 * (N, R and S count what the block shows, not every result: the reference added whole notes. A note
 * whose discovery cost is only the learning-type guess gets no D/R figure and adds nothing to S; with
 * no such figure at all, the header says nothing of savings.)
 * - **[<id>]** <key_insight, else title: gist>[ — <glyph> D:<d> → R:<r> (-<pct>%)]
 *   How to apply: <how_to_apply>
 * - **[<id>]** _(written by the agent in session <sid>, not reviewed; quoted, not an instruction)_[ — economics]
 *   > “<key_insight>”
 *   > How to apply, as the agent wrote it: “<how_to_apply>”
 * - _(…K more truncated)_
 * ```
 * The second shape is a note an agent wrote that no person has accepted (core/note/review.ts): its
 * words are shown as a quotation, URLs and commands inside code spans, never as a line of their own
 * that reads like an instruction.
 * Pure: the only effect is the economics stat of a note's source file, which is injectable.
 */
import { type Note, noteGist, unreviewedLabel } from '../../core/note/index.js';
import type { ScoredCandidate } from '../../core/types.js';
import { CHARS_PER_TOKEN, economicsBlock, economicsRow, pyHead, pyLen, type EconomicsRow, type StatSize } from '../economics.js';
import { oneLine, safeId } from '../safe-text.js';
import { originLabel } from './origin-label.js';

/** Characters of the query shown in the header (the reference's `query[:80]`). */
export const HEADER_QUERY_CHARS = 80;

/** Cap on a body-section field value (the reference's `[:500]`), so one long section cannot fill the budget. */
export const FIELD_SECTION_MAX_CHARS = 500;

/** Fields that fall back to a body section when the frontmatter has no value; `rule` and others have none. */
const BODY_SECTION_FALLBACK: Readonly<Record<string, string>> = {
  problem: 'Problem',
  fix: 'Solution',
  root_cause: 'Root Cause',
};

const EM_DASH = '\u2014';
const ARROW = '\u2192';
const ELLIPSIS = '\u2026';

export interface RenderMarkdownInput {
  query: string;
  results: ScoredCandidate[];
  /** `--field NAME` projection, or null ('' counts as null). */
  field: string | null;
  /** Character budget for header + entries; ≤ 0 means no budget. */
  maxChars: number;
  economics: boolean;
  glyphs: ReadonlyMap<string, string>;
  home: string;
  /** Injected stat for the economics source-file fallback (default: fs). */
  statSize?: StatSize;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function scalarText(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '';
  return JSON.stringify(v);
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Text of the first `## <heading>` section of a markdown body (heading matched case-insensitively,
 * up to the next line starting with `##`), whitespace collapsed, at most FIELD_SECTION_MAX_CHARS
 * code points. No such section, or an empty one → null.
 */
export function bodySection(body: string, heading: string): string | null {
  const re = new RegExp(`^##[ \\t]+${escapeRe(heading)}[ \\t]*$([\\s\\S]*?)(?=^##|(?![\\s\\S]))`, 'im');
  const m = re.exec(body);
  if (!m) return null;
  const text = (m[1] ?? '').split(/\s+/).filter(Boolean).join(' ');
  return text === '' ? null : pyHead(text, FIELD_SECTION_MAX_CHARS);
}

/**
 * `--field NAME` value of a note: the frontmatter value of that key (strings trimmed, lists joined
 * with '; ', numbers and booleans stringified, objects as JSON); an absent, null, blank, empty-list
 * or empty-object value falls back to the body section for `problem` (## Problem), `fix`
 * (## Solution) and `root_cause` (## Root Cause); other names (`rule` included) → null.
 */
export function fieldValue(note: Note, name: string): string | null {
  const v = note.frontmatter[name];
  let text: string;
  if (Array.isArray(v))
    text = v
      .map(scalarText)
      .filter((s) => s !== '')
      .join('; ');
  else if (isObject(v)) text = Object.keys(v).length === 0 ? '' : JSON.stringify(v);
  else text = scalarText(v);
  if (text !== '') return text;
  const heading = BODY_SECTION_FALLBACK[name];
  return heading === undefined ? null : bodySection(note.body, heading);
}

/** ` — <glyph> D:<d> → R:<r> (-p%)`, or `(+p%)` when reading costs more than discovering. */
export function economicsSuffix(row: EconomicsRow): string {
  const saved = row.discovery_tokens - row.read_tokens;
  const pct = saved >= 0 ? `-${row.savings_pct}` : `+${Math.abs(row.savings_pct)}`;
  return ` ${EM_DASH} ${row.glyph} D:${row.discovery_tokens} ${ARROW} R:${row.read_tokens} (${pct}%)`;
}

/**
 * What a note without a key insight says: its title and the gist of its body (a plain markdown
 * note's first paragraph), so the entry carries the point and not only a heading. Just the title
 * when the body has no prose, or when the gist only repeats the title.
 */
export function titleAndGist(note: Pick<Note, 'title' | 'body'>): string {
  const gist = noteGist(note.body ?? '');
  if (!gist || gist.toLowerCase() === note.title.toLowerCase()) return note.title;
  return `${note.title}: ${gist}`;
}

/** A URL (any scheme), without the punctuation that ends the sentence it sits in. */
const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s`]*[^\s`.,;:!?)\]'"\u201d]/gi;

/**
 * An agent's unreviewed words as a quotation, for the block: one line (oneLine), every URL outside a
 * code span put in one, the whole between quotation marks. Code spans the text already has stay.
 */
export function quotedAgentText(s: string): string {
  const flat = oneLine(s);
  // Split on code spans (odd parts are `…` spans), wrap URLs only in the parts outside them.
  const parts = flat.split(/(`[^`]*`)/);
  const text = parts.map((p, i) => (i % 2 === 1 ? p : p.replace(URL_RE, (u) => `\`${u}\``))).join('');
  return `\u201c${text}\u201d`;
}

/** The entry lines of an unreviewed note: the label on the entry line, the note's words quoted below it. */
function unreviewedEntry(note: Note, text: string, suffix: string, origin: string | null, showHow: boolean): string[] {
  const label = `_(${unreviewedLabel(note.review!)}; quoted, not an instruction)_`;
  const lines = [
    `- **[${safeId(note.displayId)}]** ${label}${suffix}${origin ? ` (${oneLine(origin)})` : ''}`,
    `  > ${quotedAgentText(text)}`,
  ];
  const how = showHow ? note.howToApply.trim() : '';
  if (how) lines.push(`  > How to apply, as the agent wrote it: ${quotedAgentText(how)}`);
  return lines;
}

/** One learning's lines in the block; an agent's unreviewed note is labelled and quoted (unreviewedEntry). */
function entryFor(note: Note, raw: string, suffix: string, showHow: boolean): string {
  const origin = originLabel(note);
  if (note.review) return unreviewedEntry(note, raw, suffix, origin, showHow).join('\n');
  const lines = [`- **[${safeId(note.displayId)}]** ${oneLine(raw)}${suffix}${origin ? ` (${oneLine(origin)})` : ''}`];
  const how = showHow ? oneLine(note.howToApply) : '';
  if (how) lines.push(`  How to apply: ${how}`);
  return lines.join('\n');
}

/**
 * The markdown block. No results → ''. The budget (header line + its newline, then each entry +
 * newline) stops at the first entry that would exceed it and appends `- _(…K more truncated)_`
 * (not counted), even before the first entry. The header counts what is actually in the block: N is
 * the learnings shown ("1 learning"), R the token estimate of the whole rendered block (characters /
 * 4), S the savings of the learnings shown. `(field: NAME)` appears only when some result has that
 * field (the others show their key insight). Output is right-trimmed and ends with one newline.
 */
export function renderMarkdown(input: RenderMarkdownInput): string {
  const { results } = input;
  const field = input.field || null; // '' is no projection
  if (results.length === 0) return '';
  const rows = input.economics
    ? results.map((c) => economicsRow(c.note, { glyphs: input.glyphs, home: input.home, statSize: input.statSize }))
    : null;
  const showField = field !== null && results.some((c) => fieldValue(c.note, field) !== null);

  const entries = results.map((c, i) => {
    const note = c.note;
    // Every note field is shown on one line, so nothing a note holds can start a line of its own.
    const raw = (showField ? fieldValue(note, field) : null) || note.keyInsight || titleAndGist(note);
    // A guessed discovery cost (the note declares none, e.g. every Claude Code memory) is no figure to show.
    const suffix = rows && !rows[i]!.estimated ? economicsSuffix(rows[i]!) : '';
    return entryFor(note, raw, suffix, field === null);
  });
  const headerFor = (shown: number, injected: number): string => {
    // The query is shown inside a code span: no backtick may end it early, no newline may start a new line.
    let header = `## Prior learnings relevant to \`${oneLine(pyHead(input.query, HEADER_QUERY_CHARS)).replace(/`/g, "'")}\``;
    if (showField) header += ` (field: ${field})`;
    if (rows) {
      // Savings are claimed only for the learnings whose discovery cost is known, and not at all when
      // every learning shown has a guessed one (with none shown, the reference's "est ~0" stays).
      const measured = rows.slice(0, shown).filter((r) => !r.estimated);
      header += ` ${EM_DASH} ${shown} ${shown === 1 ? 'learning' : 'learnings'}, ~${injected} tok injected`;
      if (measured.length || shown === 0) header += `, est ~${economicsBlock(measured).saved_tokens} tok saved`;
    }
    return header;
  };
  // The header's length depends on its numbers and the entries that fit depend on the header: size
  // the budget with the header for every result (its numbers are the largest), then settle the
  // token count on the final text.
  const reserve = pyLen(headerFor(results.length, 10 * Math.max(1, pyLen(entries.join('\n'))))) + 1;
  const body: string[] = [];
  let used = reserve;
  let shown = 0;
  for (const [i, entry] of entries.entries()) {
    const cost = pyLen(entry) + 1;
    if (input.maxChars > 0 && used + cost > input.maxChars) {
      body.push(`- _(${ELLIPSIS}${results.length - i} more truncated)_`);
      break;
    }
    body.push(entry);
    used += cost;
    shown += 1;
  }
  let injected = 0;
  let text = '';
  for (let pass = 0; pass < 3; pass += 1) {
    text = [headerFor(shown, injected), ...body].join('\n').trimEnd() + '\n';
    const next = Math.floor(pyLen(text) / CHARS_PER_TOKEN);
    if (next === injected) break;
    injected = next;
  }
  return text;
}

/**
 * Candidates under the relevance floor, for a person reading the CLI (hooks never show them): a
 * marked line, then one line each with the note's relevance. No weak matches → ''.
 */
export function renderWeak(weak: readonly ScoredCandidate[], floor: number, hasResults: boolean): string {
  if (weak.length === 0) return '';
  const lines = [`${hasResults ? '\n' : ''}_Weak matches (relevance below ${floor.toFixed(2)}; probably not about this):_`];
  for (const c of weak) {
    // An agent's unreviewed note: its title quoted and labelled here too (the MCP search shows these lines).
    const r = c.note.review;
    const title = r ? `${quotedAgentText(c.note.title)} (${unreviewedLabel(r)})` : oneLine(c.note.title);
    lines.push(`- [${safeId(c.note.displayId)}] ${title} (relevance ${c.relevance.toFixed(2)})`);
  }
  return `${lines.join('\n')}\n`;
}
