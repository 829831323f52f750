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
import type { Note, NoteOrigin } from '../../core/note/index.js';
import type { AttachedRoot } from '../kb/index.js';
import { splitFrontmatter } from '../../core/frontmatter.js';
import { readJson, writeFileAtomic } from '../../io/atomic-write.js';
import { MAX_NOTE_BYTES } from '../kb/index.js';

import {
  isTrusted,
  PROVENANCE_VERSION,
  TEAM_PREFIX,
  provenancePath,
  renderPulledNote,
  shardFileName,
  type Authority,
  type Projection,
  type Provenance,
  type TrustList,
} from './projection.js';

export {
  AUTHORITIES,
  isTrusted,
  loadTrust,
  PROVENANCE_SUFFIX,
  PROVENANCE_VERSION,
  projectNote,
  provenancePath,
  renderPulledNote,
  saveTrust,
  shardFileName,
  TEAM_PREFIX,
  type Authority,
  type LocalIdentity,
  type Projection,
  type Provenance,
  type StoreRow,
  type TrustList,
} from './projection.js';

const loadCjs = createRequire(import.meta.url);
const yaml = (): typeof JsYaml => loadCjs('js-yaml') as typeof JsYaml;

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
export function applyToShard(
  shard: string,
  id: string,
  projection: Projection | null,
  storeId: string,
  summary: ShardSummary,
  nowIso: string,
): 'written' | 'removed' | 'unchanged' | 'too-large' {
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
    (before.local_kb ?? null) === projection.localKb &&
    before.store === storeId &&
    fileSha(file) === before.file_sha256
  ) {
    return 'unchanged';
  }
  // A revision over the cap in the store was never read (its content is not here): skip it as the index would.
  const rendered = (projection.row.bytes ?? 0) > MAX_NOTE_BYTES ? null : renderPulledNote(projection, storeId, nowIso);
  if (!rendered || Buffer.byteLength(rendered.text) > MAX_NOTE_BYTES) {
    // The index would skip it anyway; do not let a store fill the disk with what recall never reads.
    if (before || fs.existsSync(file)) {
      fs.rmSync(file, { force: true });
      fs.rmSync(side, { force: true });
      count(summary, before, -1);
    }
    return 'too-large';
  }
  const { text, provenance } = rendered;
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
    fs.writeFileSync(
      side,
      `${JSON.stringify({ ...prov, quarantine: quarantined, authority, file_sha256: createHash('sha256').update(out).digest('hex'), pulled_at: nowIso })}\n`,
    );
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
 * A pulled note as the index of the KB at `realKb` keeps it: authority, quarantine and origin from
 * its provenance sidecar, never from the note's own frontmatter; quarantined with an unknown author
 * when the sidecar is missing or does not match the file. Null (left out of this index) when this
 * very KB published it from this state dir: the KB holds the note itself.
 */
export function decorateTeamNote(note: Note, abs: string, realKb: string | null = null): Note | null {
  const prov = readProvenance(provenancePath(abs));
  const verified = prov !== null && prov.file_sha256 === note.contentHash;
  if (verified && realKb !== null && prov.local_kb === realKb) return null;
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
 * the KB's own (less the ones this KB published). Nothing when nothing was pulled, or when the KB
 * is the shard itself. RECALL_TEAM_NOTES=0 does not change it: the index is shared by calls with
 * other settings (a recall server, concurrent processes), so that setting drops the shard's notes
 * from its own recall instead (operators/filters.ts, dropTeamNotes).
 */
export function teamAttachments(stateDir: string, kbRoot: string): AttachedRoot[] {
  const shard = path.join(stateDir, 'team', 'shard');
  if (!fs.existsSync(documentsOf(shard))) return [];
  let realKb: string | null = null;
  try {
    realKb = fs.realpathSync(kbRoot);
    if (realKb === fs.realpathSync(shard)) return [];
  } catch {
    /* a KB that does not exist yet cannot be the shard */
  }
  return [{ prefix: TEAM_PREFIX, root: shard, decorate: (note, abs) => decorateTeamNote(note, abs, realKb) }];
}
