/**
 * Which revision of each note this machine shows, as the store holds them: read every revision's
 * lifecycle and size (never its content), choose with the trust rules (sources/team/projection.ts),
 * then read the content of the chosen revisions only, in batches of bounded bytes. `recall team
 * pull` and the live team arm both go through here, so both show the same revision of a note and
 * neither reads a row over the size cap into memory.
 */
import { ident, sessionRole, type TeamConnection } from './connection.js';
import { loadTrust, projectNote, type LocalIdentity, type Projection, type StoreRow } from './projection.js';
import { META_COLS, NOTE_BYTES_CAP, NOTE_BYTES_SQL, type RawRow, toStoreRow } from './rows.js';
import { localPublishers, type TeamSettings } from './settings.js';

/**
 * Content read per query, in bytes (title + body + frontmatter of the chosen revisions). A page of
 * 1000 notes near the 1 MiB cap would otherwise be read as one 1 GB result; at 8 MiB a pull's memory
 * stays near that whatever the notes weigh.
 */
export const CONTENT_BATCH_BYTES = 8 * 1024 * 1024;

/** Who this machine is to the store: its role, name, and the publisher ids of the KBs pushed from this state dir. */
export async function localIdentity(conn: TeamConnection, settings: TeamSettings): Promise<LocalIdentity> {
  return { role: await sessionRole(conn), machine: settings.machine, publishers: localPublishers(settings.paths) };
}

/** How this machine chooses a note's revision (its trust list and identity, read once per pull or search), and who it is. */
export async function chooser(
  conn: TeamConnection,
  settings: TeamSettings,
): Promise<{ choose: (revisions: readonly StoreRow[]) => Projection | null; local: LocalIdentity }> {
  const trust = loadTrust(settings.paths);
  const local = await localIdentity(conn, settings);
  return { choose: (revisions) => projectNote(revisions, trust, local), local };
}

/** A chosen revision whose content the store holds over the cap: not read, and not shown. */
export const overCap = (p: Projection | null): boolean => p !== null && (p.row.bytes ?? 0) > NOTE_BYTES_CAP;

/** Every revision of the notes `ids`, without content (each row has its `bytes`), by id. */
export async function revisionsOf(conn: TeamConnection, ids: readonly string[]): Promise<Map<string, StoreRow[]>> {
  const out = new Map<string, StoreRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await conn.query<RawRow>(`SELECT ${META_COLS} FROM ${ident(conn.schema)}.notes WHERE id = ANY($1::text[])`, [[...ids]]);
  for (const r of rows) out.get(r.id)?.push(toStoreRow(r));
  return out;
}

/** The revision each note shows here (null: none, every revision retired by someone whose word counts), content not read yet. */
export async function chooseRevisions(
  conn: TeamConnection,
  ids: readonly string[],
  choose: (revisions: readonly StoreRow[]) => Projection | null,
): Promise<Map<string, Projection | null>> {
  const out = new Map<string, Projection | null>();
  for (const [id, revisions] of await revisionsOf(conn, ids)) out.set(id, revisions.length ? choose(revisions) : null);
  return out;
}

/**
 * The projections in batches whose content together stays within `budget` bytes (a projection over
 * the cap weighs nothing: its content is never read). Each batch holds at least one projection.
 */
export function byteBatches<T extends Projection | null>(projections: readonly T[], budget = CONTENT_BATCH_BYTES): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  for (const p of projections) {
    const weight = p && !overCap(p) ? (p.row.bytes ?? 0) : 0;
    if (batch.length > 0 && bytes + weight > budget) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(p);
    bytes += weight;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

/**
 * The projections with the content of their chosen revisions read (one query: keep the batch within
 * CONTENT_BATCH_BYTES), in the same order; those over the cap come back unread, and one whose row is
 * gone comes back null. The projections given are left as they were, so a caller holding them does
 * not hold their content.
 */
export async function loadContent<T extends Projection | null>(conn: TeamConnection, projections: readonly T[]): Promise<(T | null)[]> {
  const wanted = projections.filter((p): p is T & Projection => p !== null && !overCap(p) && p.row.loaded === false);
  if (wanted.length === 0) return [...projections];
  const rows = await conn.query<{ id: string; revision: number; title: string; body: string; frontmatter: Record<string, unknown> }>(
    `SELECT n.id, n.revision, n.title, n.body, n.frontmatter FROM ${ident(conn.schema)}.notes n
     JOIN unnest($1::text[], $2::int[]) AS w(id, revision) USING (id, revision)
     WHERE ${NOTE_BYTES_SQL} <= $3`,
    [wanted.map((p) => p.row.id), wanted.map((p) => p.row.revision), NOTE_BYTES_CAP],
  );
  const byKey = new Map(rows.map((r) => [`${r.revision}\0${r.id}`, r]));
  return projections.map((p) => {
    if (p === null || overCap(p) || p.row.loaded !== false) return p;
    const r = byKey.get(`${p.row.revision}\0${p.row.id}`);
    // Gone between the two reads (the owner deleted it; a pull reads both in one snapshot, the live arm does not): nothing to show.
    if (!r) return null;
    const row: StoreRow = {
      ...p.row,
      title: r.title,
      body: r.body,
      frontmatter: r.frontmatter && typeof r.frontmatter === 'object' ? r.frontmatter : {},
      loaded: true,
    };
    return { ...p, row };
  });
}
