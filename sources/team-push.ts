/**
 * Publishing a batch of notes to the team store. The later edit (by updated time, then content
 * hash) becomes a note's head; an older edit is never dropped but kept as a superseded revision.
 */
import { ident, inTransaction, type TeamConnection } from './team-connection.js';

/** A note a KB publishes. */
export interface PushItem {
  id: string;
  contentHash: string;
  title: string;
  body: string;
  frontmatter: Record<string, unknown>;
  createdAt: string | null;
  updatedAt: string;
  embedModel: string | null;
  embedding: number[] | null;
}

/** A note a KB has retired (superseded, archived, forgotten, or no longer shared). */
export interface RetireItem {
  id: string;
  state: 'superseded' | 'forgotten';
  supersededBy: string | null;
}

export interface PushCounts {
  published: number;
  unchanged: number;
  /** Our edit was older than the store's: kept as a superseded revision. */
  keptAsRevision: number;
  /** Our edit replaced a newer-published revision from another machine or KB (older by updated time). */
  replacedOther: number;
  retired: number;
}

interface ExistingRow {
  id: string;
  revision: number;
  content_hash: string;
  head: boolean;
  state: string;
  updated_at: Date;
  machine: string;
  kb: string;
}

/** (updated time, content hash) ordering: the later edit wins; equal times fall back to the hash, so every machine agrees. */
function newer(aMs: number, aHash: string, bMs: number, bHash: string): boolean {
  return aMs !== bMs ? aMs > bMs : aHash > bHash;
}

/** A revision to insert, or the lifecycle columns of an existing revision to change. */
interface Insert {
  item: PushItem;
  revision: number;
  head: boolean;
  state: string;
  supersededBy: string | null;
}
type Update = Omit<Insert, 'item'> & { id: string };

/** What one pushed item does to the revisions the store has of its id. */
function planItem(item: PushItem, existing: ExistingRow[], origin: { machine: string; kb: string }, plan: Plan): void {
  const { ins, upd, counts } = plan;
  const same = existing.find((r) => r.content_hash === item.contentHash);
  if (same) {
    // Shared again after a retirement, unchanged: the same revision becomes current again.
    if (same.head && same.state !== 'current') {
      upd.push({ id: same.id, revision: same.revision, head: true, state: 'current', supersededBy: null });
      counts.published += 1;
    } else {
      counts.unchanged += 1;
    }
    return;
  }
  const head = existing.find((r) => r.head);
  const revision = existing.reduce((m, r) => Math.max(m, r.revision), 0) + 1;
  const ms = Date.parse(item.updatedAt);
  if (!head) {
    ins.push({ item, revision, head: true, state: 'current', supersededBy: null });
  } else if (newer(ms, item.contentHash, head.updated_at.getTime(), head.content_hash)) {
    upd.push({ id: head.id, revision: head.revision, head: false, state: 'superseded', supersededBy: item.id });
    ins.push({ item, revision, head: true, state: 'current', supersededBy: null });
    if (head.machine !== origin.machine || head.kb !== origin.kb) counts.replacedOther += 1;
  } else {
    // An older edit than the store's latest: never dropped, kept as a superseded revision.
    ins.push({ item, revision, head: false, state: 'superseded', supersededBy: item.id });
    counts.keptAsRevision += 1;
  }
  counts.published += 1;
}

interface Plan {
  ins: Insert[];
  upd: Update[];
  counts: PushCounts;
}

/** The inserts and updates a batch makes, given the revisions the store has of its ids. */
function planBatch(
  byId: Map<string, ExistingRow[]>,
  items: PushItem[],
  retires: RetireItem[],
  origin: { machine: string; kb: string },
): Plan {
  const plan: Plan = { ins: [], upd: [], counts: { published: 0, unchanged: 0, keptAsRevision: 0, replacedOther: 0, retired: 0 } };
  for (const item of items) planItem(item, byId.get(item.id) ?? [], origin, plan);
  const pushedIds = new Set(plan.ins.filter((i) => i.head).map((i) => i.item.id));
  for (const r of retires) {
    if (pushedIds.has(r.id)) continue;
    const head = (byId.get(r.id) ?? []).find((x) => x.head);
    if (!head || head.state === r.state || head.state === 'forgotten') continue;
    plan.upd.push({ id: head.id, revision: head.revision, head: true, state: r.state, supersededBy: r.supersededBy });
    plan.counts.retired += 1;
  }
  return plan;
}

async function writeUpdates(conn: TeamConnection, s: string, upd: Update[]): Promise<void> {
  if (!upd.length) return;
  await conn.query(
    `UPDATE ${s}.notes n SET head = u.head, state = u.state, superseded_by = u.sb
     FROM unnest($1::text[], $2::int[], $3::bool[], $4::text[], $5::text[]) AS u(id, rev, head, state, sb)
     WHERE n.id = u.id AND n.revision = u.rev`,
    [upd.map((u) => u.id), upd.map((u) => u.revision), upd.map((u) => u.head), upd.map((u) => u.state), upd.map((u) => u.supersededBy)],
  );
}

/** A vector as a PostgreSQL array literal (a non-finite component becomes 0). */
const vec = (i: PushItem): string | null => (i.embedding ? `{${i.embedding.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}}` : null);

async function writeInserts(
  conn: TeamConnection,
  s: string,
  ins: Insert[],
  origin: { machine: string; kb: string },
  pgvector: boolean,
): Promise<void> {
  if (!ins.length) return;
  await conn.query(
    `INSERT INTO ${s}.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, created_at, updated_at,
                             head, state, superseded_by, embed_model, embedding${pgvector ? ', embedding_v' : ''})
     SELECT u.id, u.rev, u.hash, u.title, u.body, u.fm::jsonb, $14, $15, u.created::timestamptz, u.updated::timestamptz,
            u.head, u.state, u.sb, u.model, u.vec::real[]${pgvector ? ', u.vec::real[]::vector' : ''}
     FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                 $9::bool[], $10::text[], $11::text[], $12::text[], $13::text[])
          AS u(id, rev, hash, title, body, fm, created, updated, head, state, sb, model, vec)`,
    [
      ins.map((i) => i.item.id),
      ins.map((i) => i.revision),
      ins.map((i) => i.item.contentHash),
      ins.map((i) => i.item.title),
      ins.map((i) => i.item.body),
      ins.map((i) => JSON.stringify(i.item.frontmatter)),
      ins.map((i) => i.item.createdAt),
      ins.map((i) => i.item.updatedAt),
      ins.map((i) => i.head),
      ins.map((i) => i.state),
      ins.map((i) => i.supersededBy),
      ins.map((i) => (i.item.embedding ? i.item.embedModel : null)),
      ins.map((i) => vec(i.item)),
      origin.machine,
      origin.kb,
    ],
  );
}

/**
 * Publish one batch in one transaction. Writers take a lock that excludes other writers (not
 * readers), so two machines pushing the same id cannot both make it the head.
 */
export async function pushBatch(
  conn: TeamConnection,
  origin: { machine: string; kb: string },
  items: PushItem[],
  retires: RetireItem[],
  pgvector: boolean,
): Promise<PushCounts> {
  const s = ident(conn.schema);
  if (items.length === 0 && retires.length === 0) return { published: 0, unchanged: 0, keptAsRevision: 0, replacedOther: 0, retired: 0 };
  const ids = [...new Set([...items.map((i) => i.id), ...retires.map((r) => r.id)])];
  return inTransaction(conn, async () => {
    await conn.query(`LOCK TABLE ${s}.notes IN SHARE ROW EXCLUSIVE MODE`);
    const rows = await conn.query<ExistingRow>(
      `SELECT id, revision, content_hash, head, state, updated_at, machine, kb FROM ${s}.notes WHERE id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map<string, ExistingRow[]>();
    for (const r of rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
    const plan = planBatch(byId, items, retires, origin);
    await writeUpdates(conn, s, plan.upd);
    await writeInserts(conn, s, plan.ins, origin, pgvector);
    return plan.counts;
  });
}

/** Current head revisions of this origin's notes in the store (what a push compares against to find withdrawn notes). */
export async function headsFrom(conn: TeamConnection, origin: { machine: string; kb: string }): Promise<Map<string, string>> {
  const s = ident(conn.schema);
  const rows = await conn.query<{ id: string; state: string }>(`SELECT id, state FROM ${s}.notes WHERE head AND machine = $1 AND kb = $2`, [
    origin.machine,
    origin.kb,
  ]);
  return new Map(rows.map((r) => [r.id, r.state]));
}
