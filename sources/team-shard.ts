/**
 * The local fleet shard of a team store: the team's notes as fleet-imported notes in a KB folder
 * (`<state dir>/team/shard/documents/*.md`) that every recall on this machine searches next to its
 * own KB. Only `recall team pull` and `recall team trust` write it; no network here.
 *
 * Trust model (what decides whether a pulled note is quarantined and what authority it has):
 * - Every note in the store carries the database role that published it (`author`, set by the
 *   server from the session, not by the client) and the machine and KB it came from.
 * - A pulled note is quarantined unless its author is trusted on this machine (`recall team trust
 *   AUTHOR`); its authority is the one given with the trust (advisory by default) for trusted
 *   authors and advisory otherwise. What the note's own frontmatter says about `authority`,
 *   `quarantine` or its source is ignored.
 * - Each pulled note has a provenance sidecar (`provenance/<file>.team.json`) recording that decision and
 *   the SHA-256 of the note file as written. The index takes authority, quarantine and author from
 *   the sidecar only; a note whose sidecar is missing, unreadable or does not match the file is
 *   quarantined with an unknown author.
 * - A newer revision by an untrusted author does not displace a trusted author's revision of the
 *   same note (the trusted one is shown, the other is "held back"); a supersede or forget is honoured
 *   when made by the note's author or a trusted teammate; a quarantined note's `supersedes:` list is
 *   kept inert so it cannot retire anyone else's note.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import type { Note, NoteOrigin } from '../core/note.js';
import type { AttachedRoot } from './attached-roots.js';
import { splitFrontmatter } from '../core/frontmatter.js';
import { readJson, writeFileAtomic } from '../core/atomic-write.js';
import type { TeamPaths } from './team-settings.js';
import { MAX_NOTE_BYTES } from './index-store.js';

const loadCjs = createRequire(import.meta.url);
const yaml = (): typeof JsYaml => loadCjs('js-yaml') as typeof JsYaml;

/** Path prefix of the shard's notes inside a KB's index (never a KB folder name). */
export const TEAM_PREFIX = '@team';
/**
 * Suffix of a pulled note's provenance sidecar. Sidecars live in `<shard>/provenance/`, beside
 * `documents/` rather than in it, so the walk every recall makes over the notes does not stat them.
 */
export const PROVENANCE_SUFFIX = '.team.json';

/** The provenance sidecar of the note file `<shard>/documents/<name>.md`. */
export function provenancePath(noteFile: string): string {
  const shard = path.dirname(path.dirname(noteFile));
  return path.join(shard, 'provenance', path.basename(noteFile).replace(/\.md$/i, PROVENANCE_SUFFIX));
}
export const PROVENANCE_VERSION = 1;

export type Authority = 'advisory' | 'promoted' | 'law';
export const AUTHORITIES: readonly Authority[] = ['advisory', 'promoted', 'law'];

/** One revision of a note as the store holds it. */
export interface StoreRow {
  id: string;
  revision: number;
  contentHash: string;
  title: string;
  body: string;
  frontmatter: Record<string, unknown>;
  author: string;
  machine: string;
  kb: string;
  updatedAt: string;
  publishedAt: string;
  /** The revision the store keeps as the note's latest (one per id). */
  head: boolean;
  state: 'current' | 'superseded' | 'forgotten';
  supersededBy: string | null;
  /** Role that retired this revision (superseded or forgotten it), or null. */
  retiredBy: string | null;
}

export interface TrustList {
  authors: Record<string, { authority: Authority; since: string }>;
}

/** The provenance sidecar of a pulled note. */
export interface Provenance {
  v: number;
  store: string;
  id: string;
  revision: number;
  author: string;
  machine: string;
  kb: string;
  published_at: string;
  content_hash: string;
  /** SHA-256 of the note file as written by the pull. */
  file_sha256: string;
  authority: Authority;
  quarantine: boolean;
  /** A newer revision by an untrusted author that this one was preferred to. */
  held_back: { revision: number; author: string } | null;
  pulled_at: string;
}

/** What a pull shows locally for one note id. */
export interface Projection {
  row: StoreRow;
  quarantined: boolean;
  authority: Authority;
  heldBack: { revision: number; author: string } | null;
}

export function loadTrust(paths: TeamPaths): TrustList {
  const raw = readJson<Partial<TrustList>>(paths.trust, {});
  const authors: TrustList['authors'] = {};
  if (raw.authors && typeof raw.authors === 'object') {
    for (const [name, v] of Object.entries(raw.authors)) {
      const authority = AUTHORITIES.includes(v?.authority as Authority) ? (v.authority as Authority) : 'advisory';
      authors[name] = { authority, since: typeof v?.since === 'string' ? v.since : '' };
    }
  }
  return { authors };
}

export function saveTrust(paths: TeamPaths, trust: TrustList): void {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(paths.trust, `${JSON.stringify(trust, null, 2)}\n`);
}

const isTrusted = (trust: TrustList, author: string): boolean => Object.prototype.hasOwnProperty.call(trust.authors, author);

const newestFirst = (a: StoreRow, b: StoreRow): number =>
  a.updatedAt === b.updatedAt ? b.revision - a.revision : a.updatedAt < b.updatedAt ? 1 : -1;

/**
 * Which revision of a note this machine shows, from all its revisions in the store, or null for
 * none: retired (by its author or a trusted teammate), or published from this very machine (its own
 * KB already holds it).
 */
export function projectNote(rows: readonly StoreRow[], trust: TrustList, machine: string): Projection | null {
  const head = rows.find((r) => r.head);
  if (!head) return null;
  if (head.machine === machine) return null;
  if (head.state !== 'current' && head.retiredBy !== null && (head.retiredBy === head.author || isTrusted(trust, head.retiredBy))) return null;
  let chosen = head;
  if (!isTrusted(trust, head.author)) {
    const trustedRevision = rows.filter((r) => !r.head && isTrusted(trust, r.author)).sort(newestFirst)[0];
    if (trustedRevision) chosen = trustedRevision;
  }
  const quarantined = !isTrusted(trust, chosen.author);
  return {
    row: chosen,
    quarantined,
    authority: quarantined ? 'advisory' : trust.authors[chosen.author]!.authority,
    heldBack: chosen === head ? null : { revision: head.revision, author: head.author },
  };
}

/** File name of a note in the shard: a readable slug of its id plus a hash (ids may hold any character). */
export function shardFileName(id: string): string {
  const slug = id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 80) || 'note';
  return `${slug}-${createHash('sha1').update(id).digest('hex').slice(0, 10)}.md`;
}

/** Frontmatter keys recall writes itself on a pulled note; the author's values for them are dropped. */
const RESERVED_KEYS = ['authority', 'quarantine', 'source_system', 'source_kind', 'source_path', 'team', 'share'];

/** The markdown file of a pulled note and its provenance record. */
export function renderPulledNote(p: Projection, storeId: string, pulledAt: string): { text: string; provenance: Omit<Provenance, 'file_sha256'> } {
  const r = p.row;
  const fm: Record<string, unknown> = { id: r.id };
  for (const [k, v] of Object.entries(r.frontmatter)) {
    if (k === 'id' || RESERVED_KEYS.includes(k)) continue;
    // A quarantined note must not retire other notes through the shared index.
    fm[k === 'supersedes' && p.quarantined ? 'held_supersedes' : k] = v;
  }
  if (fm['title'] === undefined) fm['title'] = r.title;
  fm['source_system'] = 'fleet';
  fm['source_kind'] = 'team';
  fm['source_path'] = `team:${r.author}@${r.machine}:${r.kb}`;
  fm['authority'] = p.authority;
  fm['quarantine'] = p.quarantined;
  const header = yaml().dump(fm, { noRefs: true, lineWidth: -1, skipInvalid: true });
  const text = `---\n${header}---\n${r.body.replace(/^\n+/, '')}`;
  return {
    text,
    provenance: {
      v: PROVENANCE_VERSION,
      store: storeId,
      id: r.id,
      revision: r.revision,
      author: r.author,
      machine: r.machine,
      kb: r.kb,
      published_at: r.publishedAt,
      content_hash: r.contentHash,
      authority: p.authority,
      quarantine: p.quarantined,
      held_back: p.heldBack,
      pulled_at: pulledAt,
    },
  };
}

export interface ShardSummary {
  notes: number;
  quarantined: number;
  authors: Record<string, number>;
}

export const emptySummary = (): ShardSummary => ({ notes: 0, quarantined: 0, authors: {} });

function count(summary: ShardSummary, p: Provenance | null, sign: 1 | -1): void {
  if (!p) return;
  summary.notes += sign;
  if (p.quarantine) summary.quarantined += sign;
  summary.authors[p.author] = (summary.authors[p.author] ?? 0) + sign;
  if (summary.authors[p.author] === 0) delete summary.authors[p.author];
}

export const documentsOf = (shard: string): string => path.join(shard, 'documents');
const provenanceOf = (shard: string): string => path.join(shard, 'provenance');

function fileSha(file: string): string | null {
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
}

function readProvenance(file: string): Provenance | null {
  const p = readJson<Provenance | null>(file, null);
  return p && typeof p === 'object' && p.v === PROVENANCE_VERSION && typeof p.author === 'string' ? p : null;
}

/** Folders known to exist (one mkdir per folder per process, not per note). */
const made = new Set<string>();
function ensureDir(dir: string): void {
  if (made.has(dir)) return;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  made.add(dir);
}

/**
 * Make the shard hold `projection` for note `id` (or nothing when null). The sidecar is written
 * first, then the note file (replaced atomically): an index refresh that runs in between sees a
 * note that does not match its sidecar, counts it quarantined, and reads it again once the new note
 * file lands (its mtime changes). A crash in between leaves the same mismatch, which the next pull
 * repairs (it compares the file with the sidecar). A torn sidecar reads as missing: quarantined.
 * Updates `summary` by the difference.
 */
export function applyToShard(shard: string, id: string, projection: Projection | null, storeId: string, summary: ShardSummary, nowIso: string): 'written' | 'removed' | 'unchanged' | 'too-large' {
  const docs = documentsOf(shard);
  const file = path.join(docs, shardFileName(id));
  const side = provenancePath(file);
  const before = readProvenance(side);
  if (!projection) {
    if (!before && !fs.existsSync(file)) return 'unchanged';
    fs.rmSync(file, { force: true });
    fs.rmSync(side, { force: true });
    count(summary, before, -1);
    return 'removed';
  }
  if (
    before &&
    before.revision === projection.row.revision &&
    before.content_hash === projection.row.contentHash &&
    before.quarantine === projection.quarantined &&
    before.authority === projection.authority &&
    JSON.stringify(before.held_back) === JSON.stringify(projection.heldBack) &&
    before.store === storeId &&
    fileSha(file) === before.file_sha256
  ) {
    return 'unchanged';
  }
  const { text, provenance } = renderPulledNote(projection, storeId, nowIso);
  if (Buffer.byteLength(text) > MAX_NOTE_BYTES) {
    // The index would skip it anyway; do not let a store fill the disk with what recall never reads.
    if (before || fs.existsSync(file)) {
      fs.rmSync(file, { force: true });
      fs.rmSync(side, { force: true });
      count(summary, before, -1);
    }
    return 'too-large';
  }
  ensureDir(docs);
  ensureDir(provenanceOf(shard));
  const full: Provenance = { ...provenance, file_sha256: createHash('sha256').update(text).digest('hex') };
  fs.writeFileSync(side, `${JSON.stringify(full)}\n`);
  writeFileAtomic(file, text);
  count(summary, before, -1);
  count(summary, full, 1);
  return 'written';
}

/** Count the shard from its sidecars (after an interrupted pull, or when no summary was saved). */
export function recountShard(shard: string): ShardSummary {
  const summary = emptySummary();
  let names: string[];
  try {
    names = fs.readdirSync(documentsOf(shard));
  } catch {
    return summary;
  }
  for (const n of names) {
    if (!n.endsWith('.md')) continue;
    count(summary, readProvenance(provenancePath(path.join(documentsOf(shard), n))), 1);
  }
  return summary;
}

/** Remove every pulled note (the store behind the shard changed). */
export function clearShard(shard: string): void {
  fs.rmSync(documentsOf(shard), { recursive: true, force: true });
  fs.rmSync(provenanceOf(shard), { recursive: true, force: true });
}

/**
 * Apply a changed trust list to the notes already pulled, without the network: each note whose
 * author's trust changed gets its quarantine and authority rewritten (file and sidecar). Choices
 * that need other revisions (a held-back revision) wait for the next pull, which re-reads the store.
 */
export function retrustShard(shard: string, trust: TrustList, nowIso: string): { changed: number; summary: ShardSummary } {
  const docs = documentsOf(shard);
  let changed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(docs);
  } catch {
    return { changed, summary: emptySummary() };
  }
  for (const n of names) {
    if (!n.endsWith('.md')) continue;
    const file = path.join(docs, n);
    const side = provenancePath(file);
    const prov = readProvenance(side);
    if (!prov) continue;
    const quarantined = !isTrusted(trust, prov.author);
    const authority: Authority = quarantined ? 'advisory' : trust.authors[prov.author]!.authority;
    if (quarantined === prov.quarantine && authority === prov.authority) continue;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const { frontmatter, body } = splitFrontmatter(text);
    const fm: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(frontmatter)) {
      const key = !quarantined && k === 'held_supersedes' ? 'supersedes' : quarantined && k === 'supersedes' ? 'held_supersedes' : k;
      fm[key] = v;
    }
    fm['authority'] = authority;
    fm['quarantine'] = quarantined;
    const out = `---\n${yaml().dump(fm, { noRefs: true, lineWidth: -1, skipInvalid: true })}---\n${body}`;
    // Sidecar first, then the note (see applyToShard).
    fs.writeFileSync(side, `${JSON.stringify({ ...prov, quarantine: quarantined, authority, file_sha256: createHash('sha256').update(out).digest('hex'), pulled_at: nowIso })}\n`);
    writeFileAtomic(file, out);
    changed += 1;
  }
  return { changed, summary: recountShard(shard) };
}

/**
 * Fusion key of a team note. A quarantined note gets a key of its own, so a teammate's untrusted
 * note that reuses the id of one of this KB's notes cannot stand in for it (and hide it with the
 * quarantine filter); a trusted note keeps its id and fuses with the same note found elsewhere.
 */
export function teamKey(key: string, quarantined: boolean): string {
  return quarantined ? `${key}#team-quarantined` : key;
}

/**
 * A pulled note as the index keeps it: authority, quarantine and origin from its provenance
 * sidecar, never from the note's own frontmatter; quarantined with an unknown author when the
 * sidecar is missing or does not match the file.
 */
export function decorateTeamNote(note: Note, abs: string): Note {
  const prov = readProvenance(provenancePath(abs));
  const verified = prov !== null && prov.file_sha256 === note.contentHash;
  const origin: NoteOrigin = {
    kind: 'team',
    author: verified ? prov.author : 'unknown',
    machine: verified ? prov.machine : '',
    kb: verified ? prov.kb : '',
    store: verified ? prov.store : '',
    revision: verified ? prov.revision : 0,
    verified,
  };
  const quarantine = verified ? prov.quarantine : true;
  return {
    ...note,
    key: teamKey(note.key, quarantine),
    authority: verified ? prov.authority : 'advisory',
    quarantine,
    origin,
  };
}

/**
 * The shard as an extra root of a KB's index, so a plain recall searches the pulled notes next to
 * the KB's own. Nothing when nothing was pulled, when RECALL_TEAM_NOTES=0, or when the KB is the
 * shard itself.
 */
export function teamAttachments(stateDir: string, kbRoot: string, env: Readonly<Record<string, string | undefined>>): AttachedRoot[] {
  if (env['RECALL_TEAM_NOTES']?.trim() === '0') return [];
  const shard = path.join(stateDir, 'team', 'shard');
  if (!fs.existsSync(documentsOf(shard))) return [];
  try {
    if (fs.realpathSync(kbRoot) === fs.realpathSync(shard)) return [];
  } catch {
    /* a KB that does not exist yet cannot be the shard */
  }
  return [{ prefix: TEAM_PREFIX, root: shard, decorate: decorateTeamNote }];
}
