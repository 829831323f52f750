/**
 * The learning note model: one markdown file of the KB, normalised once at index time so the
 * query path never re-parses YAML.
 *
 * Field meanings follow the reflect-kb note format (a compatibility contract with the Python
 * reference, which writes and reads the same files); wrong types are coerced or
 * ignored field by field, so one odd field never loses the note.
 */
import { createHash } from 'node:crypto';
import { splitFrontmatter } from '../frontmatter.js';
import { parseLooseDate } from '../dates.js';
import { declaredKey, noteGist, readableId } from './gist.js';
import { memoryFields } from './memory.js';
import { unreviewedMark, type UnreviewedMark } from './review.js';
import {
  confidenceNum,
  confidenceTier,
  howToApply,
  jsonSafe,
  normaliseProject,
  parseTags,
  proofCount,
  str,
  stripQuotes,
  truthy,
} from './fields.js';
export { str, confidenceTier, confidenceNum, parseTags, proofCount, normaliseProject, howToApply } from './fields.js';
export { MODEL_TEXT_CHARS, modelText, EXTRA_FIELDS, extraFieldsText, searchableText } from './text.js';

export type NoteLocation = 'documents' | 'archived' | 'forgotten';

/** Where a note not written in this KB came from (a team store pull), as recorded when it was imported. */
export interface NoteOrigin {
  kind: 'team';
  /** Database role that published the note (recorded by the store, not claimed by the note). */
  author: string;
  machine: string;
  kb: string;
  store: string;
  revision: number;
  /** False when the note's provenance record is missing or does not match the file. */
  verified: boolean;
}

export interface Note {
  /**
   * Identity used for fusion and filtering: frontmatter `id`, else `name`, else the note's path in
   * its KB without `.md` (see pathId); text that is not a KB file (an engine's chunk) falls back to
   * sha1(chunk[:256])[:12] as in the reference.
   */
  key: string;
  /** Display id: the same as `key`, so every command shows and accepts one id per note. */
  displayId: string;
  /** Path relative to the KB root, with forward slashes. */
  path: string;
  location: NoteLocation;
  title: string;
  keyInsight: string;
  howToApply: string;
  /** Upper-case tier as written (HIGH, MEDIUM, LOW, or whatever the note says). */
  confidence: string;
  /** Ranking value in 0..1. */
  confidenceNum: number;
  tags: string[];
  proofCount: number | null;
  /** Lower-case last path component of `project_id` (else `project`), or ''. */
  projectId: string;
  domain: string;
  /** Effective authority: a fleet note's own claim of `law` (or unvouched `promoted`) is not honoured. */
  authority: string;
  /** Effective quarantine: fleet notes are quarantined unless the local fleet ledger vouches for them. */
  quarantine: boolean;
  /** Where the note comes from: written here ('local') or imported from the fleet ('fleet'). */
  provenance?: 'local' | 'fleet';
  learningType: string;
  discoveryTokens: number | null;
  /** The `<!-- archived: ISO -->` body header, verbatim, or null. */
  archivedAt: string | null;
  /** Epoch ms of the note's date (frontmatter archived/updated_at/updated/created/date, then the header), or null. */
  dateMs: number | null;
  /** Epoch ms used by the recency boost: the archived header, else dateMs. */
  recencyMs: number | null;
  supersededBy: string | null;
  status: string;
  /** sha256 of the file text, and the hash the frontmatter declares (provenance.content_hash), if any. */
  contentHash: string;
  declaredHash: string | null;
  /** Frontmatter as JSON-safe data (for --field, fleet-context source, JSON output). */
  frontmatter: Record<string, unknown>;
  body: string;
  /** The whole note text, stripped: what lexical overlap, economics and models see. */
  chunkText: string;
  /** Set on notes imported from a team store (never from the note's own frontmatter). */
  origin?: NoteOrigin;
  /**
   * A Claude Code memory's kind (user, feedback, project, reference), from `metadata.type` or the
   * older top-level `type:`; '' for other notes.
   */
  memoryType?: string;
  /**
   * Notes this one says it replaces, by the name its `[[name]]` link gives, read from its text (see
   * replacedLinks): Claude Code writes a new memory beside the old one and says so in words.
   */
  replaces?: string[];
  /**
   * Set on a note an agent wrote that no person has accepted yet (core/note/review.ts): its tier is
   * then at most MEDIUM, whatever it claims, and every output labels it.
   */
  review?: UnreviewedMark;
}

/** Highest tier and ranking confidence an unreviewed note stands with: an agent's claim of HIGH is not honoured. */
const UNREVIEWED_TIER = 'MEDIUM';
const UNREVIEWED_CONFIDENCE = 0.6;

const ARCHIVED_RE = /<!--\s*archived:\s*([0-9T:.+\-Z]+)\s*-->/;

/** Frontmatter dates, first found wins; `modified` is Claude Code's (top level, or under `metadata`). */
const DATE_FIELDS = ['archived', 'updated_at', 'updated', 'modified', 'created', 'date'] as const;

/** What the local fleet-import ledger says about a note's content (see sources/index/fleet-ledger.ts). */
export type FleetLookup = (contentHash: string, declaredHash: string | null, docId: string) => { imported: boolean; vouched: boolean };

/**
 * Trust model for imported notes. A note is a fleet note when its frontmatter says
 * `source_system: fleet` or when the local fleet ledger (written by the import, outside the KB)
 * lists its content hash. A fleet note's frontmatter cannot raise its own standing: `law` is never
 * honoured, `promoted` only when the ledger vouches for it (seen in 3+ imports), anything else is
 * `advisory` (`archived` stays: lowering is always allowed); it is quarantined unless vouched for.
 * Local notes (the user's own) keep what their frontmatter says.
 */
function fleetStanding(claimed: string, quarantined: boolean, vouched: boolean): { authority: string; quarantine: boolean } {
  const authority = claimed === 'archived' ? 'archived' : claimed === 'promoted' && vouched ? 'promoted' : 'advisory';
  return { authority, quarantine: vouched ? quarantined : true };
}

/**
 * The id of a note that declares none, from its place in the KB: the path below `documents/` (or
 * below a flat KB's root) without `.md`, the same whether the note is live, archived or forgotten
 * (`documents/deploy/rollback.md`, `archived/deploy/rollback.md` → `deploy/rollback`). Stable across
 * edits of the text, unlike a hash of it. A path that could not be shown as typed (spaces, accents,
 * other scripts) is made readable: `Kafka Lag.md` → `Kafka-Lag`. null for text that is not a KB file.
 */
export function pathId(relPath: string): string | null {
  if (!/\.md$/i.test(relPath)) return null;
  const id = relPath
    .replace(/\.md$/i, '')
    .replace(/^(documents|archived)\//, '')
    .replace(/^\.forgotten\//, '')
    .replace(/\.\d+$/, (m) => (relPath.includes('.forgotten/') ? '' : m));
  // An Obsidian note is often `Kafka consumer lag.md`: its id is shown to the agent and typed back
  // into `recall show`, so it must survive display as is (spaces → `-`, see readableId).
  return id ? readableId(id) : null;
}

/**
 * Claude Code's `MEMORY.md` is an index of the folder's memory files, one `- [Title](file.md) — hook`
 * line each: indexing it as a note would make it match every query. A MEMORY.md whose lines are
 * (apart from headings) all such links is that index; one with prose of its own is a note.
 */
export function isMemoryIndex(relPath: string, text: string): boolean {
  if ((relPath.split('/').pop() ?? '') !== 'MEMORY.md') return false;
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('<!--'));
  return lines.length > 0 && lines.every((l) => /^[-*+]\s*\[[^\]]*\]\([^)]+\)/.test(l));
}

/** The first `# heading` of a body (a plain markdown note's title), or ''. */
function firstHeading(body: string): string {
  const m = /^#{1,2}[ \t]+(.+?)[ \t#]*$/m.exec(body);
  return m ? m[1]!.trim() : '';
}

/** The archive header's time, the note's date (first date field, else the archive time) and its recency time. */
function noteDates(
  fm: Record<string, unknown>,
  body: string,
): { archivedAt: string | null; dateMs: number | null; recencyMs: number | null } {
  const header = ARCHIVED_RE.exec(body);
  const archivedAt = header?.[1] ?? null;
  const headerDate = archivedAt ? parseLooseDate(archivedAt) : null;
  let fmDate: Date | null = null;
  for (const f of DATE_FIELDS) {
    fmDate = parseLooseDate(fm[f]);
    if (fmDate) break;
  }
  const meta = fm['metadata'];
  if (!fmDate && meta && typeof meta === 'object' && !Array.isArray(meta))
    fmDate = parseLooseDate((meta as Record<string, unknown>)['modified']);
  const dateMs = (fmDate ?? headerDate)?.getTime() ?? null;
  return { archivedAt, dateMs, recencyMs: headerDate?.getTime() ?? dateMs };
}

/** Whether a note came from the fleet (by the import ledger or its own marker), and the authority and quarantine it stands with. */
function noteStanding(fm: Record<string, unknown>, contentHash: string, docId: string, fleet: FleetLookup | undefined) {
  const prov = fm['provenance'] && typeof fm['provenance'] === 'object' ? (fm['provenance'] as Record<string, unknown>) : {};
  const declaredHash = str(prov['content_hash']) || str(fm['content_hash']) || null;
  const ledger = fleet?.(contentHash, declaredHash, docId) ?? { imported: false, vouched: false };
  const isFleet = ledger.imported || str(fm['source_system']).toLowerCase() === 'fleet';
  const claimedAuthority = str(fm['authority']).toLowerCase();
  const standing = isFleet
    ? fleetStanding(claimedAuthority, truthy(fm['quarantine']), ledger.vouched)
    : { authority: claimedAuthority, quarantine: truthy(fm['quarantine']) };
  return { declaredHash, isFleet, standing };
}

/**
 * A note's tier and ranking confidence, and its review mark: an unreviewed note's (an agent's, not
 * yet accepted by a person) are capped at MEDIUM. `review` is absent from a person's note.
 */
function reviewedConfidence(fm: Record<string, unknown>): Pick<Note, 'confidence' | 'confidenceNum' | 'review'> {
  const review = unreviewedMark(fm);
  const claimed = confidenceTier(fm['confidence']);
  if (!review) return { confidence: claimed, confidenceNum: confidenceNum(fm, claimed) };
  // LOW stays LOW; HIGH, and any other word an agent may have written, stands as MEDIUM.
  const tier = claimed === 'LOW' ? claimed : UNREVIEWED_TIER;
  return { confidence: tier, confidenceNum: Math.min(confidenceNum(fm, tier), UNREVIEWED_CONFIDENCE), review };
}

/**
 * Build a Note from a file's text. Throws FrontmatterError for a broken header (the caller skips the
 * note with a one-line reason); every other oddity is coerced. `fleet` looks the note up in the
 * local fleet-import ledger (none: only the frontmatter marker identifies fleet notes).
 */
export function parseNote(text: string, relPath: string, location: NoteLocation, fleet?: FleetLookup): Note {
  const { frontmatter: rawFm, body } = splitFrontmatter(text);
  const fm = jsonSafe(rawFm) as Record<string, unknown>;
  const chunkText = text.trim();
  const id = str(fm['id']);
  const name = str(fm['name']);
  // A declared id or name that could not be shown as typed (a memory file's `name: Pool per worker`)
  // becomes its readable form with a hash of it and of the file's place (declaredKey), the one id
  // injected text, logs, show and hydrate all use; a reflect id is already readable and never moves.
  // First 256 code points (not UTF-16 units) for text with no id, as the reference's chunk_text[:256].
  const declared = id || name;
  const place = pathId(relPath);
  const key =
    (declared && declaredKey(declared, place ?? relPath)) ||
    place ||
    createHash('sha1').update(Array.from(chunkText).slice(0, 256).join('')).digest('hex').slice(0, 12);
  const stem = /\.md$/i.test(relPath) ? (relPath.split('/').pop() ?? '').replace(/\.md$/i, '') : '';
  // Claude Code's memory files have a slug `name` and a one-line `description`: the description reads as a title.
  const title = stripQuotes(str(fm['title'])) || (name && str(fm['description'])) || name || firstHeading(body) || stem || '(no title)';
  const { archivedAt, dateMs, recencyMs } = noteDates(fm, body);
  const discovery = fm['discovery_tokens'];
  const supersededBy = str(fm['superseded_by']);
  const contentHash = createHash('sha256').update(text).digest('hex');
  const { declaredHash, isFleet, standing } = noteStanding(fm, contentHash, id || name, fleet);
  return {
    key,
    displayId: key,
    path: relPath,
    location,
    title,
    // Claude Code's memory files say it in `description` ("one-line summary, used to decide relevance").
    keyInsight: stripQuotes(str(fm['key_insight'])) || str(fm['description']),
    // A Claude Code memory file says what to do in its body ("Use force-unlock."), often with no
    // "How to apply:" line: its gist is the part the agent needs besides the one-line description.
    howToApply: howToApply(body) || (name && !str(fm['key_insight']) && str(fm['description']) ? noteGist(body) : ''),
    // Capped for an agent's unreviewed note, which also gets its `review` mark.
    ...reviewedConfidence(fm),
    tags: parseTags(fm['tags']),
    proofCount: proofCount(fm),
    projectId: normaliseProject(fm['project_id']) || normaliseProject(fm['project']),
    domain: str(fm['domain']).toLowerCase(),
    authority: standing.authority,
    quarantine: standing.quarantine,
    provenance: isFleet ? 'fleet' : 'local',
    learningType: str(fm['learning_type']).toLowerCase(),
    discoveryTokens: typeof discovery === 'number' && Number.isInteger(discovery) && discovery >= 0 ? discovery : null,
    archivedAt,
    dateMs,
    recencyMs,
    supersededBy: supersededBy && supersededBy.toLowerCase() !== 'null' ? supersededBy : null,
    status: str(fm['status']).toLowerCase(),
    contentHash,
    declaredHash,
    frontmatter: fm,
    body,
    chunkText,
    ...memoryFields(fm, body, name),
  };
}

/** The id a note declares (frontmatter `id`, else a memory file's `name`), as written; '' when none. */
export function declaredIdOf(note: Pick<Note, 'frontmatter'>): string {
  return str(note.frontmatter['id']) || str(note.frontmatter['name']);
}
