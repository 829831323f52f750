/**
 * A note revision as the team store returns it, and its conversion to the shard's row shape.
 * Revisions are read in two steps: what decides which revision a machine shows (META_COLS, no
 * content, so a teammate's 100 MB row costs nothing to look at), then the content of the chosen
 * revisions only, in batches of bounded bytes (sources/team/revisions.ts).
 */
import type { StoreRow } from './shard.js';
import { MAX_NOTE_BYTES } from '../kb/index.js';

export const ROW_COLS = `id, revision, content_hash, title, body, frontmatter, author, machine, kb, updated_at, published_at, head, state, superseded_by, retired_by, publisher`;

/**
 * Size of a revision's content in bytes as the store counts it: title, body and frontmatter (as
 * JSON text). The store refuses a new row over NOTE_BYTES_CAP (schema version 4) and readers skip one.
 */
export const NOTE_BYTES_SQL = `(octet_length(title) + octet_length(body) + octet_length(frontmatter::text))`;
/** The largest note content the store takes and a reader reads: the size a KB note file may have (1 MiB). */
export const NOTE_BYTES_CAP = MAX_NOTE_BYTES;

/** Every column but the content, with the content's size (`bytes`). */
export const META_COLS = `id, revision, content_hash, '' AS title, '' AS body, '{}'::jsonb AS frontmatter, author, machine, kb, updated_at, published_at, head, state, superseded_by, retired_by, publisher, ${NOTE_BYTES_SQL} AS bytes`;

export interface RawRow {
  id: string;
  revision: number;
  content_hash: string;
  title: string;
  body: string;
  frontmatter: Record<string, unknown>;
  author: string;
  machine: string;
  kb: string;
  updated_at: Date;
  published_at: Date;
  head: boolean;
  state: StoreRow['state'];
  superseded_by: string | null;
  retired_by: string | null;
  publisher: string | null;
  /** Content size (META_COLS); absent when the content itself was read. */
  bytes?: number | string;
}

export function toStoreRow(r: RawRow): StoreRow {
  return {
    id: r.id,
    revision: r.revision,
    contentHash: r.content_hash,
    title: r.title,
    body: r.body,
    frontmatter: r.frontmatter && typeof r.frontmatter === 'object' ? r.frontmatter : {},
    author: r.author,
    machine: r.machine,
    kb: r.kb,
    updatedAt: new Date(r.updated_at).toISOString(),
    publishedAt: new Date(r.published_at).toISOString(),
    head: r.head,
    state: r.state,
    supersededBy: r.superseded_by,
    retiredBy: r.retired_by,
    publisher: r.publisher ?? null,
    ...(r.bytes !== undefined ? { bytes: Number(r.bytes), loaded: false } : {}),
  };
}
