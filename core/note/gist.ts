/**
 * What a plain markdown note (an Obsidian vault, a docs folder: no `key_insight` in a YAML header)
 * says in a line or two, and the readable id a note without a declared id is known by.
 *
 * A reflect note states its point in `key_insight`; a plain note usually does it in its first
 * paragraph, under the heading. Without that gist an injected entry is a bare title, and the agent
 * learns nothing from it. Pure text functions; the caller escapes the result for display.
 */
import { createHash } from 'node:crypto';

/**
 * Most characters of a gist. Long enough for two plain sentences, short enough that three entries
 * stay well inside a hook's 1,500-character budget with their titles and how-to-apply lines.
 */
export const GIST_MAX_CHARS = 240;

const FENCE_RE = /^\s*(```|~~~)/;
const HEADING_RE = /^\s{0,3}#{1,6}(\s|$)/;
/** A line that is not prose: a table row, a rule, an image or embed alone, a tag line, a how-to-apply line. */
const NOT_PROSE_RE = /^\s*(\||[-*_]{3,}\s*$|!\[|!\[\[|(#[\w/-]+\s*)+$|\*\*How to apply:?\*\*)/i;

/** Markdown links and wiki links as their text; emphasis markers dropped. */
function plainInline(s: string): string {
  return s
    .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, '$2')
    .replace(/\[\[([^\]]+)\]\]/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first paragraph of prose in a markdown body (headings, code, tables, comments skipped), or ''. */
export function firstParagraph(body: string): string {
  const lines = body.replace(/<!--[\s\S]*?(-->|$)/g, '').split('\n');
  const para: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (FENCE_RE.test(line)) {
      inFence = !inFence;
      if (para.length) break;
      continue;
    }
    if (inFence) continue;
    const blank = line.trim() === '';
    if (blank || HEADING_RE.test(line) || NOT_PROSE_RE.test(line)) {
      if (para.length) break;
      continue;
    }
    // A list or quote: its first item is the paragraph.
    const item = /^\s*(?:[-*+]|\d+[.)]|>)\s+(.*)$/.exec(line);
    if (item) {
      if (para.length) break;
      para.push(item[1]!);
      break;
    }
    para.push(line.trim());
  }
  return plainInline(para.join(' '));
}

/**
 * The gist of a note: its first paragraph, as many whole sentences as fit in `max` characters;
 * a first sentence longer than that is cut at a word and ends with "…". '' for a body with no prose.
 */
export function noteGist(body: string, max = GIST_MAX_CHARS): string {
  const para = firstParagraph(body);
  if (para.length <= max) return para;
  const sentences = para.match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g) ?? [para];
  let out = '';
  for (const s of sentences) {
    const next = (out + s).trimStart();
    if (next.length > max) break;
    out = next;
  }
  if (out) return out.trim();
  const cut = para.slice(0, max - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}\u2026`;
}

/** What an id may look like to be shown and typed as is (sinks/safe-text.ts shows anything else as a hash). */
const SHOWABLE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/**
 * A path-derived id that can be shown and typed as is: `infra/Kafka Lag` → `infra/Kafka-Lag`,
 * `Café notes` → `Cafe-notes`. Accents are folded; characters with no ASCII form (CJK, Cyrillic) are
 * dropped and a short hash of the original keeps such ids distinct. An id that is already showable
 * is returned unchanged, so a reflect KB's ids never move.
 */
export function readableId(id: string): string {
  if (SHOWABLE_ID_RE.test(id)) return id;
  const { slug, lost } = slugOf(id);
  const hash = createHash('sha1').update(id).digest('hex').slice(0, 6);
  const base = slug.slice(0, lost || !slug ? 120 : 128).replace(/[-/._:@]+$/, '');
  return lost || !base ? (base ? `${base}-${hash}` : `note-${hash}`) : base;
}

/** `id` with accents folded and every run of characters an id cannot show turned into one `-`; `lost` when some had no ASCII form. */
function slugOf(id: string): { slug: string; lost: boolean } {
  const folded = id.normalize('NFKD').replace(/\p{M}+/gu, '');
  const slug = folded
    .split('/')
    .map((seg) =>
      seg
        .replace(/[^A-Za-z0-9._:@-]+/g, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^[-._:@]+|-+$/g, ''),
    )
    .filter(Boolean)
    .join('/');
  return { slug, lost: /[^\x20-\x7e]/.test(folded) };
}

/** What every key `declaredKey` makes for `declared` starts with (the part before its hash), for a lookup by the declared text. */
export function declaredKeyPrefix(declared: string): string {
  const base = slugOf(declared)
    .slug.slice(0, 120)
    .replace(/[-/._:@]+$/, '');
  return `${base || 'note'}-`;
}

/**
 * The key of a note from the id (or Claude Code memory `name`) it declares, `place` being where it
 * lives (its path id, the same for a note and its retired copies). A declaration that is already a
 * showable id is the key as is (a reflect KB's ids never move). Any other had to be changed (slugged
 * or cut) and gets 6 hex of the SHA-1 of the declaration and its place after its readable form:
 * `Pool size per worker` → `Pool-size-per-worker-3fa1c2`. So two declarations that read alike
 * (`Pool size per worker`, `Pool   size per worker!`, one long name and another with the same start),
 * or two files declaring one unreadable name, never share a key and one of them never hides the
 * other; and a note whose declared id is exactly `Pool-size-per-worker` keeps that id. The key is
 * the same on every run and in any walk order: it depends on the note's own file only.
 */
export function declaredKey(declared: string, place: string): string {
  if (SHOWABLE_ID_RE.test(declared)) return declared;
  const hash = createHash('sha1').update(`${declared}\0${place}`).digest('hex').slice(0, 6);
  return `${declaredKeyPrefix(declared)}${hash}`;
}

/**
 * The key of a live note whose key another live note already holds (two files declaring one id):
 * its key, `-` and `hexLen` hex of the SHA-1 of its place (its path id, the same for the note and its
 * retired copies, so an archived copy of it gets the same key). Readable, and the same on every run
 * for the same file; the first holder keeps the plain key (sources/index/key-claims.ts).
 */
export function distinctKey(key: string, place: string, hexLen = 6): string {
  return `${key}-${createHash('sha1').update(place).digest('hex').slice(0, hexLen)}`;
}

/** Whether `key` is a distinctKey of `own` for a note at `place` (any hash length): the key the index gave it. */
export function isDistinctKeyOf(key: string, own: string, place: string): boolean {
  const hexLen = key.length - own.length - 1;
  return hexLen > 0 && key.startsWith(`${own}-`) && key === distinctKey(own, place, hexLen);
}

/**
 * How an id that cannot be shown as is (a frontmatter `id: my note`) appears in injected text:
 * `id-` and 10 hex digits of its SHA-1. sinks/safe-text.ts prints it so; lookups accept it back, so
 * every id the agent is shown opens (a spec keeps the two equal).
 */
export function hashedId(id: string): string {
  return `id-${createHash('sha1').update(id).digest('hex').slice(0, 10)}`;
}

/** Whether `s` has the shape of a hashed id. */
export function isHashedId(s: string): boolean {
  return /^id-[0-9a-f]{10}$/.test(s);
}
