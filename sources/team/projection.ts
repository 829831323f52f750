/**
 * What a team note becomes on this machine: the store's revisions of one note reduced to the one
 * shown (trusted authors first), its provenance record, and the note file written for it.
 * The trust model is described at the top of sources/team/shard.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import type { TeamPaths } from './settings.js';

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
  /** Role that retired this revision (superseded or forgotten it, or took its head), or null. */
  retiredBy: string | null;
  /** Publisher id of the KB it came from (null on rows from before schema version 3). */
  publisher: string | null;
  /** Size of title, body and frontmatter in bytes, when the row was read without them (see sources/team/rows.ts). */
  bytes?: number;
  /** False while title, body and frontmatter are not read yet (a row read for choosing); absent or true once they are. */
  loaded?: boolean;
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
  /** Publisher id of the KB it came from (absent before schema version 3). */
  publisher?: string | null;
  /** This KB (real path) published it from this state dir: its own index leaves the copy out. */
  local_kb?: string | null;
  pulled_at: string;
}

/** What a pull shows locally for one note id. */
export interface Projection {
  row: StoreRow;
  quarantined: boolean;
  authority: Authority;
  heldBack: { revision: number; author: string } | null;
  /** The store marks the shown revision retired (or not the latest) on the word of a role not trusted here. */
  refused: { by: string } | null;
  /** The real path of this state dir's KB that published it (its own index leaves the copy out), else null. */
  localKb: string | null;
}

/** Who this pull is: the database role, the machine's name, and the publisher ids of the KBs pushed from this state dir. */
export interface LocalIdentity {
  role: string;
  machine: string;
  /** Publisher id → the KB's real path. */
  publishers: ReadonlyMap<string, string>;
}

export function loadTrust(paths: TeamPaths): TrustList {
  const raw = readJson<Partial<TrustList>>(paths.trust, {});
  const authors: TrustList['authors'] = {};
  if (raw.authors && typeof raw.authors === 'object') {
    for (const [name, v] of Object.entries(raw.authors)) {
      const authority = AUTHORITIES.includes(v?.authority) ? v.authority : 'advisory';
      authors[name] = { authority, since: typeof v?.since === 'string' ? v.since : '' };
    }
  }
  return { authors };
}

export function saveTrust(paths: TeamPaths, trust: TrustList): void {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(paths.trust, `${JSON.stringify(trust, null, 2)}\n`);
}

export const isTrusted = (trust: TrustList, author: string): boolean => Object.prototype.hasOwnProperty.call(trust.authors, author);

const newestFirst = (a: StoreRow, b: StoreRow): number =>
  a.updatedAt === b.updatedAt ? b.revision - a.revision : a.updatedAt < b.updatedAt ? 1 : -1;

/** Not the note's live revision in the store: retired, or no longer its head. */
const retired = (r: StoreRow): boolean => !r.head || r.state !== 'current';

/** A retirement (or loss of the head) this machine takes: made by the revision's author or by a trusted role. */
const honoured = (r: StoreRow, trust: TrustList): boolean =>
  r.retiredBy !== null && (r.retiredBy === r.author || isTrusted(trust, r.retiredBy));

/** The KB of this state dir that published `r` (same role, and its publisher id or, on older rows, this machine), or null. */
function localKbOf(r: StoreRow, local: LocalIdentity | undefined): string | null {
  if (!local || r.author !== local.role) return null;
  if (r.publisher !== null) return local.publishers.get(r.publisher) ?? null;
  return r.machine === local.machine ? r.kb : null;
}

/**
 * Which revision of a note this machine shows, from all its revisions in the store, or null when
 * every revision was retired by its author or a trusted teammate.
 * - A revision counts as retired (superseded, forgotten, or its head taken) only on the word of its
 *   author or of a trusted role; a retirement by anyone else is refused and the revision stays
 *   (`refused`), whatever the store's head flag says: the store's own rules (row-level security)
 *   already keep teammates off each other's rows, and this holds even where they did not.
 * - Of the revisions still standing, the head is shown when a trusted author wrote it; otherwise the
 *   newest standing revision by a trusted author is (the head is then "held back"); otherwise the
 *   head, or the newest standing revision when none is the head, quarantined.
 * Notes this state dir's KBs published are shown too (another KB here may not have them), marked
 * with that KB (`localKb`) so its own index leaves them out.
 */
export function projectNote(rows: readonly StoreRow[], trust: TrustList, local?: LocalIdentity): Projection | null {
  const standing = rows.filter((r) => !(retired(r) && honoured(r, trust)));
  if (standing.length === 0) return null;
  const head = standing.find((r) => r.head) ?? null;
  const trustedOther = standing.filter((r) => r !== head && isTrusted(trust, r.author)).sort(newestFirst)[0];
  const chosen = head && isTrusted(trust, head.author) ? head : (trustedOther ?? head ?? [...standing].sort(newestFirst)[0]!);
  const quarantined = !isTrusted(trust, chosen.author);
  const heldBack = head && chosen !== head ? { revision: head.revision, author: head.author } : null;
  return {
    row: chosen,
    quarantined,
    authority: quarantined ? 'advisory' : trust.authors[chosen.author]!.authority,
    heldBack,
    refused: retired(chosen) && !heldBack ? { by: chosen.retiredBy ?? 'unknown' } : null,
    localKb: localKbOf(chosen, local),
  };
}

/** File name of a note in the shard: a readable slug of its id plus a hash (ids may hold any character). */
export function shardFileName(id: string): string {
  const slug =
    id
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '')
      .slice(0, 80) || 'note';
  return `${slug}-${createHash('sha1').update(id).digest('hex').slice(0, 10)}.md`;
}

/** Frontmatter keys recall writes itself on a pulled note; the author's values for them are dropped. */
const RESERVED_KEYS = ['authority', 'quarantine', 'source_system', 'source_kind', 'source_path', 'team', 'share'];

/** The markdown file of a pulled note and its provenance record. */
export function renderPulledNote(
  p: Projection,
  storeId: string,
  pulledAt: string,
): { text: string; provenance: Omit<Provenance, 'file_sha256'> } {
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
      publisher: r.publisher,
      local_kb: p.localKb,
      pulled_at: pulledAt,
    },
  };
}
