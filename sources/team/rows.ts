/**
 * A note revision as the team store returns it, and its conversion to the shard's row shape.
 */
import type { StoreRow } from './shard.js';

export const ROW_COLS = `id, revision, content_hash, title, body, frontmatter, author, machine, kb, updated_at, published_at, head, state, superseded_by, retired_by, publisher`;

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
  };
}
