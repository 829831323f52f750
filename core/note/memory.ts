/**
 * What a Claude Code memory file says beyond an ordinary note: its kind (user, feedback, project,
 * reference) and the older memories it says it replaces. Claude Code writes a new memory beside the
 * old one and says so in words ("[[CI runs on Jenkins]] is obsolete"), so both stay in the folder.
 */
import { codeSpans, str } from './fields.js';
import { textStems } from '../stems.js';
import { STOPWORDS } from '../terms.js';
import { textMemo } from '../text-memo.js';
import { ascending, wordIndex } from './word-index.js';

/** Claude Code's memory kinds. */
const MEMORY_TYPES = new Set(['user', 'feedback', 'project', 'reference']);

/** Words that say a linked note no longer holds ("[[CI runs on Jenkins]] is obsolete", "moved from [[x]]"). */
const REPLACED_CUE =
  /\b(?:obsolete|outdated|out of date|no longer|not any ?more|superseded|supersedes|replaced|replaces|replacing|instead of|deprecated|retired|is gone|are gone|was removed|moved (?:from|off|away)|migrated (?:from|off|away)|switched (?:from|off|away))\b/i;

/** Most replaced links read from one note (a note naming hundreds is not replacing them). */
const MAX_REPLACED_LINKS = 3;

/**
 * The `[[name]]` links of a note's text that sit in a clause saying the linked note no longer holds
 * (REPLACED_CUE in the same clause: text between . ; ! ? or line breaks). A link that merely points
 * somewhere ("see [[bench-host]]") replaces nothing. At most MAX_REPLACED_LINKS, and none past that.
 */
export function replacedLinks(body: string): string[] {
  const out = new Set<string>();
  for (const clause of body.split(/[.;!?\n]+(?:\s|$)/)) {
    if (!clause.includes('[[') || !REPLACED_CUE.test(clause.replace(/\[\[[^\]]*\]\]/g, ' '))) continue;
    for (const m of clause.matchAll(/\[\[([^\]|#\n]{1,200})(?:[|#][^\]\n]*)?\]\]/g)) out.add(m[1]!.trim());
  }
  return out.size > MAX_REPLACED_LINKS ? [] : [...out].filter(Boolean);
}

/** Code spans read per memory for replacements it states without a link (a long memory is not all replacements). */
const MAX_REPLACED_SPANS = 12;
/** Code spans of another memory compared with them. */
const MAX_COMPARED_SPANS = 60;

/** The words of code spans (`docker compose -f compose.test.yml` → docker, compose, compose.test.yml), an option without its value. */
function spanWords(spans: readonly string[]): Set<string> {
  return new Set(
    spans
      .flatMap((s) => s.toLowerCase().split(/\s+/))
      // A call's parentheses are no part of its name: `MainCoroutineRule()` is MainCoroutineRule.
      .map((w) =>
        w
          .replace(/=.*$/, '')
          .replace(/\(\)$/, '')
          .replace(/^["'(]+|["'),.:]+$/g, ''),
      )
      .filter((w) => w.length >= 4),
  );
}

/** Words after which a replacement clause names the new thing (`npm ci` is gone, use `pnpm install`). */
const NEW_SIDE_RE =
  /\b(?:use|using|now|in favou?r of|(?:replaced|superseded) by|switched to|moved to|migrated to|instead)\b(?!\s+of\b)|→|->/i;

/**
 * What a memory says no longer holds without linking the memory that said it: the code spans of
 * its clauses with REPLACED_CUE and no `[[link]]` ("this replaced the old compose test database:
 * `compose.test.yml`, port 5433 and `-PtestDb` are gone").
 */
export function replacedSpans(body: string): string[] {
  const out: string[] = [];
  for (const clause of body.slice(0, 20_000).split(/[.;!?\n]+(?:\s|$)/)) {
    if (clause.includes('[[') || !REPLACED_CUE.test(clause.replace(/`[^`]*`/g, ' '))) continue;
    // What comes after "use …", "replaced by …", "→" is the replacement, not what is gone.
    const newSide = NEW_SIDE_RE.exec(clause.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length)));
    const goneText = newSide ? clause.slice(0, newSide.index) : clause;
    out.push(...codeSpans(goneText, MAX_REPLACED_SPANS), ...codeNames(namedGone(goneText.replace(/`[^`]*`/g, ' '))));
    if (out.length >= MAX_REPLACED_SPANS) break;
  }
  return out.slice(0, MAX_REPLACED_SPANS);
}

/**
 * Where a clause names what is gone, for names without backticks: after an active cue ("replaced
 * jest.config.js"), else before each cue, from the one before it ("mockito-kotlin is gone from the
 * lockfile and MockRedis was removed"); not where it went or what removed it ("was removed from
 * fly.toml", "replaced by vitest.config.ts").
 */
function namedGone(prose: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const cue of prose.matchAll(new RegExp(REPLACED_CUE.source, 'gi'))) {
    const at = cue.index ?? 0;
    parts.push(goneAfter(prose, at, cue[0]) ?? prose.slice(from, at));
    from = at + cue[0].length;
  }
  return parts.join(' ');
}

/**
 * Names written as code outside backticks: a library or package (`mockito-kotlin is gone`), a
 * dotted module, a class (`MainCoroutineRule`). Hyphenated English ("built-in") is read too, but like
 * a span it counts only when it is a word of an older memory's code spans.
 */
function codeNames(prose: string): string[] {
  return [...prose.matchAll(/(?<![\w.-])(?:[a-z][a-z0-9]*(?:[-.][a-z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)(?![\w-])/g)].map(
    (m) => m[0],
  );
}

/** The content stems of a text (function words and words under three letters left out). */
function contentStems(text: string): Set<string> {
  return new Set([...textStems(text.replace(/[-_]+/g, ' '))].filter((w) => w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w)));
}

/** Cues after which an active clause names what is gone ("Horizon replaced the workers", "we no longer run X", "instead of X"). */
const GONE_AFTER_CUE = /^(?:replaced|replaces|replacing|supersedes|instead of|moved|migrated|switched|no longer|not any ?more)/i;
/** What makes such a cue passive: what is gone comes before it ("the workers were replaced", "X is no longer used", "replaced by"). */
const PASSIVE_BEFORE = /\b(?:is|are|was|were|been|be|being|got|gets|get)\s+$/i;
/** Where what is gone ends after an active cue: the new side, or what it is for ("replaced X with Y", "from X to Y", "X for the store"). */
const GONE_END_RE = new RegExp(`${NEW_SIDE_RE.source}|\\b(?:with|to|onto|for|by)\\b`, 'i');

/**
 * What an active cue at `at` names as gone ("Horizon replaced the per-server queue workers in
 * August": the workers), up to GONE_END_RE; null for a passive one ("the workers were replaced",
 * "replaced by"), where what is gone comes before it.
 */
function goneAfter(prose: string, at: number, cue: string): string | null {
  const after = prose.slice(at + cue.length);
  if (!GONE_AFTER_CUE.test(cue) || PASSIVE_BEFORE.test(prose.slice(0, at)) || /^\s+by\b/i.test(after)) return null;
  const end = GONE_END_RE.exec(after);
  return end ? after.slice(0, end.index) : after;
}

/**
 * The part of a replacement clause that names what is gone: after an active cue, up to GONE_END_RE
 * ("Horizon replaced the per-server queue workers in August": not Horizon, which is the new side);
 * else before the cue, up to what names the new side ("`npm ci` is obsolete, use pnpm").
 */
function goneSide(prose: string): string {
  const cue = REPLACED_CUE.exec(prose)!;
  const gone = goneAfter(prose, cue.index, cue[0]);
  if (gone !== null) return gone;
  const newSide = NEW_SIDE_RE.exec(prose);
  return (newSide ? prose.slice(0, newSide.index) : prose).replace(REPLACED_CUE, ' ');
}

/**
 * The content stems of what a memory's plain-words replacement clauses say is gone (goneSide):
 * clauses with REPLACED_CUE and no `[[link]]`, code spans left out (replacedSpans reads those).
 */
function replacedWords(body: string): Set<string> {
  const out = new Set<string>();
  for (const clause of body.slice(0, 20_000).split(/[.;!?\n]+(?:\s|$)/)) {
    const prose = clause.replace(/`[^`]*`/g, ' ');
    if (clause.includes('[[') || !REPLACED_CUE.test(prose)) continue;
    for (const w of contentStems(goneSide(prose))) out.add(w);
  }
  return out;
}

/**
 * Whether a newer memory says in words that an older one's subject is gone: at least two content
 * words of the older memory's name, and half of them, are among what the newer one's replacement
 * clauses say is gone, not counting the newer memory's own name words (a subject that goes on:
 * "Redis replaced Memcached for the session store" retires no `session-store-ttl` rule of a
 * memory named `session-store-on-redis`).
 */
function namesGone(gone: ReadonlySet<string>, ownName: ReadonlySet<string>, olderName: ReadonlySet<string>): boolean {
  if (olderName.size < 2) return false;
  const hit = [...olderName].filter((w) => gone.has(w) && !ownName.has(w)).length;
  return hit >= 2 && hit * 2 >= olderName.size;
}

/** A memory as statedReplacements reads it (a Note is one). */
interface StatingMemory {
  key: string;
  path: string;
  body: string;
  memoryType?: string;
  frontmatter?: Record<string, unknown>;
}

/** What statedReplacements reads of a memory's body: the words of each span said to be gone, the words its clauses say are gone, its code's words. */
interface BodyReading {
  gone: string[][];
  goneWords: ReadonlySet<string>;
  code: ReadonlySet<string>;
}

/**
 * A memory's body as statedReplacements reads it, kept per key and text (core/text-memo.ts): every
 * recall reads it for each candidate memory, twice, and the recall server answers a session's
 * prompts from the same memories.
 */
const bodyReading = textMemo<BodyReading>((body) => ({
  gone: replacedSpans(body).map((s) => [...spanWords([s])]),
  goneWords: replacedWords(body),
  code: spanWords(codeSpans(body, MAX_COMPARED_SPANS)),
}));

/**
 * Replacements among memories that one states in words, not by a link: a newer memory replaces an
 * older one of the same folder when two words, of two code spans it says are gone (`compose.test.yml`,
 * `-PtestDb`), are in the older one's code spans; or when its replacement clauses name the older
 * one's subject in plain words ("Horizon replaced the per-server queue workers" of a memory named
 * "Queue workers on the web servers"; see namesGone). Pairs [older, newer] by key; a pair claimed
 * both ways replaces neither. Pure.
 */
export function statedReplacements(notes: readonly StatingMemory[]): [older: string, newer: string][] {
  const memories = notes.filter((n) => n.memoryType);
  const folder = (p: string): string => p.slice(0, p.lastIndexOf('/') + 1);
  // Per span: the two words must come from two things said to be gone. One command's own words
  // (`./gradlew build` no longer runs detekt; Compose v1 is gone, `docker compose up` now) name a
  // tool the older memory may still rightly use, not what of it is gone.
  const read = new Map(memories.map((n) => [n.key, bodyReading(n.key, n.body)]));
  const gone = new Map(memories.map((n) => [n.key, read.get(n.key)!.gone]));
  const goneWords = new Map(memories.map((n) => [n.key, read.get(n.key)!.goneWords]));
  const names = new Map(memories.map((n) => [n.key, contentStems(memoryNameWords(n.frontmatter ?? {}))]));
  const stating = memories.filter((n) => new Set(gone.get(n.key)!.flat()).size >= 2 || goneWords.get(n.key)!.size >= 2);
  if (stating.length === 0) return [];
  const code = new Map(memories.map((n) => [n.key, read.get(n.key)!.code]));
  const folders = new Map(memories.map((n) => [n.key, folder(n.path)]));
  // Only a memory with a word of what the newer one says is gone can be what it replaces: the
  // memories by their code words and name words, so a folder of thousands is not read pair by pair.
  const byCode = wordIndex(memories.map((n) => code.get(n.key)!));
  const byName = wordIndex(memories.map((n) => names.get(n.key)!));
  const pairs: [string, string][] = [];
  for (const newer of stating) {
    const said = gone.get(newer.key)!;
    const lists = [...new Set(said.flat())].map((w) => byCode.get(w) ?? []);
    for (const w of goneWords.get(newer.key)!) lists.push(byName.get(w) ?? []);
    let replaced = 0;
    // In folder order, read only as far as needed: 2,000 memories that all say the same things are
    // gone each reach all the others, and gathering and sorting them all took seconds.
    for (const k of ascending(lists)) {
      const older = memories[k]!;
      // Past MAX_REPLACED_LINKS it replaces none (below): a memory that says everything is gone costs no more.
      if (replaced > MAX_REPLACED_LINKS) break;
      if (older.key === newer.key || folders.get(older.key) !== folders.get(newer.key)) continue;
      const theirs = code.get(older.key)!;
      // Two spans each with a word in the older memory's code, and two words among them: then two
      // different words come from two different spans.
      const hit = said.map((ws) => ws.filter((w) => theirs.has(w))).filter((ws) => ws.length > 0);
      if (
        (hit.length >= 2 && new Set(hit.flat()).size >= 2) ||
        namesGone(goneWords.get(newer.key)!, names.get(newer.key)!, names.get(older.key)!)
      ) {
        pairs.push([older.key, newer.key]);
        replaced += 1;
      }
    }
  }
  // A set, not a scan of the pairs per pair: sixty candidates that all say the same thing is gone
  // make thousands of pairs, and a quadratic scan over them took seconds.
  const claimed = new Set(pairs.map(([o, n]) => `${o}\0${n}`));
  // A memory that would replace more than a few others is not replacing them (as MAX_REPLACED_LINKS).
  const count = new Map<string, number>();
  for (const [, n] of pairs) count.set(n, (count.get(n) ?? 0) + 1);
  return pairs.filter(([o, n]) => !claimed.has(`${n}\0${o}`) && count.get(n)! <= MAX_REPLACED_LINKS);
}

/** A Claude Code memory's kind: `metadata.type` (2.1.300+), else the older top-level `type:`; '' when neither is one. */
function memoryTypeOf(fm: Record<string, unknown>): string {
  const meta = fm['metadata'];
  const nested = meta && typeof meta === 'object' && !Array.isArray(meta) ? str((meta as Record<string, unknown>)['type']) : '';
  const t = (nested || str(fm['type'])).toLowerCase();
  return MEMORY_TYPES.has(t) ? t : '';
}

/**
 * A Claude Code memory's `name` as words ("commit-message-format" → "commit message format"): the
 * subject its writer gave it, searched and weighed like a title. '' for a note that is no memory
 * (one with an `id`, or no `name`) and for one with a `title` of its own, which names its subject
 * already (a file name copied into `name:` is no subject).
 */
export function memoryNameWords(fm: Record<string, unknown>): string {
  const name = str(fm['name']);
  if (!name || str(fm['id']) || str(fm['title'])) return '';
  return name.replace(/[-_]+/g, ' ').trim();
}

/** The memory kind and replaced links of a Claude Code memory file (a note with a `name` and no `id`); {} for others. */
/** Whether a note's frontmatter is a Claude Code memory's: a `name` and no reflect `id`. */
export function isMemory(fm: Record<string, unknown>): boolean {
  return Boolean(str(fm['name'])) && !str(fm['id']);
}

export function memoryFields(fm: Record<string, unknown>, body: string, name: string): { memoryType?: string; replaces?: string[] } {
  if (!name || !isMemory(fm)) return {};
  const memoryType = memoryTypeOf(fm);
  const replaces = replacedLinks(body).filter((n) => n !== name);
  return { ...(memoryType ? { memoryType } : {}), ...(replaces.length ? { replaces } : {}) };
}
