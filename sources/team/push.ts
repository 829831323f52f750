/**
 * Publishing a batch of notes to the team store. The later edit (by updated time, then content
 * hash) becomes a note's head; an older edit is never dropped but kept as a superseded revision.
 * A role changes only the lifecycle of the rows it published (the store enforces it: see version 3
 * in sources/team/schema.ts); a newer revision takes the head through the store's insert trigger.
 */
import { ident, inTransaction, sessionRole, type TeamConnection } from './connection.js';
import { causeCode } from './settings.js';

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
  /** Retirements asked of notes another role published: not made (only a note's author retires it in the store). */
  notYours: number;
}

/** Where a push comes from: the machine's name, the KB's real path, and the KB's publisher id (publisherId in sources/team/settings.ts). */
export interface PushOrigin {
  machine: string;
  kb: string;
  publisher: string;
}

/** A note the store refused (a character PostgreSQL text cannot hold, say), by id, with the server's reason. */
export interface Rejected {
  id: string;
  message: string;
}

export interface BatchResult {
  counts: PushCounts;
  rejected: Rejected[];
}

export const zeroCounts = (): PushCounts => ({ published: 0, unchanged: 0, keptAsRevision: 0, replacedOther: 0, retired: 0, notYours: 0 });

interface ExistingRow {
  id: string;
  revision: number;
  content_hash: string;
  head: boolean;
  state: string;
  updated_at: Date;
  machine: string;
  kb: string;
  author: string;
  publisher: string | null;
}

/** Whether a stored row came from this very KB (rows of schema version 2 and older have no publisher id). */
const fromOrigin = (r: ExistingRow, origin: PushOrigin): boolean =>
  r.publisher !== null ? r.publisher === origin.publisher : r.machine === origin.machine && r.kb === origin.kb;

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
  /** The counts this insert added to (taken back when the store refuses the note). */
  counted: (keyof PushCounts)[];
}
type Update = Omit<Insert, 'item' | 'counted'> & { id: string };

/** What one pushed item does to the revisions the store has of its id (`me`: the session's role). */
function planItem(item: PushItem, existing: ExistingRow[], origin: PushOrigin, me: string, plan: Plan): void {
  const { ins, upd, counts } = plan;
  const head = existing.find((r) => r.head);
  const revision = existing.reduce((m, r) => Math.max(m, r.revision), 0) + 1;
  const same = existing.find((r) => r.content_hash === item.contentHash);
  if (same) {
    if (!(same.head && same.state !== 'current')) {
      counts.unchanged += 1;
      return;
    }
    // Shared again after a retirement, unchanged: our own revision becomes current again; someone
    // else's we cannot (and should not) revive, so the same content is published as our revision.
    if (same.author === me) {
      upd.push({ id: same.id, revision: same.revision, head: true, state: 'current', supersededBy: null });
      counts.published += 1;
    } else {
      ins.push({ item, revision, head: true, state: 'current', supersededBy: null, counted: ['published'] });
      counts.published += 1;
    }
    return;
  }
  const ms = Date.parse(item.updatedAt);
  const counted: (keyof PushCounts)[] = ['published'];
  if (!head) {
    ins.push({ item, revision, head: true, state: 'current', supersededBy: null, counted });
  } else if (newer(ms, item.contentHash, head.updated_at.getTime(), head.content_hash)) {
    // The store's insert trigger takes the head from the previous revision (whoever published it).
    if (!fromOrigin(head, origin)) counted.push('replacedOther');
    ins.push({ item, revision, head: true, state: 'current', supersededBy: null, counted });
  } else {
    // An older edit than the store's latest: never dropped, kept as a superseded revision.
    counted.push('keptAsRevision');
    ins.push({ item, revision, head: false, state: 'superseded', supersededBy: item.id, counted });
  }
  for (const k of counted) counts[k] += 1;
}

interface Plan {
  ins: Insert[];
  upd: Update[];
  counts: PushCounts;
}

/** The inserts and updates a batch makes, given the revisions the store has of its ids. */
function planBatch(byId: Map<string, ExistingRow[]>, items: PushItem[], retires: RetireItem[], origin: PushOrigin, me: string): Plan {
  const plan: Plan = { ins: [], upd: [], counts: zeroCounts() };
  for (const item of items) planItem(item, byId.get(item.id) ?? [], origin, me, plan);
  const pushedIds = new Set(plan.ins.filter((i) => i.head).map((i) => i.item.id));
  for (const r of retires) {
    if (pushedIds.has(r.id)) continue;
    const head = (byId.get(r.id) ?? []).find((x) => x.head);
    if (!head || head.state === r.state || head.state === 'forgotten') continue;
    if (head.author !== me) {
      // Another role's note (a `supersedes:` naming it, say): the store lets only its author retire
      // it. The superseding note's `supersedes:` still retires it for teammates who trust us.
      plan.counts.notYours += 1;
      continue;
    }
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

async function writeInserts(conn: TeamConnection, s: string, ins: Insert[], origin: PushOrigin, pgvector: boolean): Promise<void> {
  if (!ins.length) return;
  await conn.query(
    `INSERT INTO ${s}.notes (id, revision, content_hash, title, body, frontmatter, machine, kb, created_at, updated_at,
                             head, state, superseded_by, embed_model, embedding, publisher${pgvector ? ', embedding_v' : ''})
     SELECT u.id, u.rev, u.hash, u.title, u.body, u.fm::jsonb, $14, $15, u.created::timestamptz, u.updated::timestamptz,
            u.head, u.state, u.sb, u.model, u.vec::real[], $16${pgvector ? ', u.vec::real[]::vector' : ''}
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
      origin.publisher,
    ],
  );
}

/** SQLSTATE class 22 (data exception): the value itself cannot be stored (a NUL in text, a bad escape in JSON). */
const isDataError = (err: unknown): boolean => /^22/.test(causeCode(err));

/**
 * Insert the batch's revisions; when the server refuses a value, insert them one at a time instead
 * (each under its own savepoint), so the notes it refuses are named and the others still publish.
 */
async function insertAll(conn: TeamConnection, s: string, ins: Insert[], origin: PushOrigin, pgvector: boolean): Promise<Rejected[]> {
  if (!ins.length) return [];
  await conn.query('SAVEPOINT batch');
  try {
    await writeInserts(conn, s, ins, origin, pgvector);
    await conn.query('RELEASE SAVEPOINT batch');
    return [];
  } catch (err) {
    if (!isDataError(err)) throw err;
    await conn.query('ROLLBACK TO SAVEPOINT batch');
  }
  const rejected: Rejected[] = [];
  for (const one of ins) {
    await conn.query('SAVEPOINT one');
    try {
      await writeInserts(conn, s, [one], origin, pgvector);
      await conn.query('RELEASE SAVEPOINT one');
    } catch (err) {
      if (!isDataError(err)) throw err;
      await conn.query('ROLLBACK TO SAVEPOINT one');
      rejected.push({ id: one.item.id, message: (err as Error).message.replace(/^team store query failed: /, '') });
    }
  }
  return rejected;
}

/**
 * Publish one batch in one transaction. Writers take a lock that excludes other writers (not
 * readers), so two machines pushing the same id cannot both make it the head (the store's unique
 * index of heads refuses a second one from any client that does not take it). A note whose values
 * the server cannot store is left out and returned in `rejected`; the rest of the batch publishes.
 */
export async function pushBatch(
  conn: TeamConnection,
  origin: PushOrigin,
  items: PushItem[],
  retires: RetireItem[],
  pgvector: boolean,
): Promise<BatchResult> {
  const s = ident(conn.schema);
  if (items.length === 0 && retires.length === 0) return { counts: zeroCounts(), rejected: [] };
  const ids = [...new Set([...items.map((i) => i.id), ...retires.map((r) => r.id)])];
  return inTransaction(conn, async () => {
    // Teammates may no longer UPDATE the whole table (version 3), which LOCK TABLE would need: an
    // advisory lock per schema serialises pushes instead (readers never wait for it).
    await conn.query(`SELECT pg_advisory_xact_lock(hashtext('recall-team-push:' || $1))`, [conn.schema]);
    const me = await sessionRole(conn);
    const rows = await conn.query<ExistingRow>(
      `SELECT id, revision, content_hash, head, state, updated_at, machine, kb, author, publisher FROM ${s}.notes WHERE id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map<string, ExistingRow[]>();
    for (const r of rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
    const plan = planBatch(byId, items, retires, origin, me);
    await writeUpdates(conn, s, plan.upd);
    const rejected = await insertAll(conn, s, plan.ins, origin, pgvector);
    for (const r of rejected) for (const k of plan.ins.find((i) => i.item.id === r.id)?.counted ?? []) plan.counts[k] -= 1;
    return { counts: plan.counts, rejected };
  });
}

/**
 * Current head revisions this KB published (what a push compares against to find withdrawn notes):
 * by our role with this KB's publisher id, or, for rows from before publisher ids, by our role from
 * this machine and KB path.
 */
export async function headsFrom(conn: TeamConnection, origin: PushOrigin): Promise<Map<string, string>> {
  const s = ident(conn.schema);
  const rows = await conn.query<{ id: string; state: string }>(
    `SELECT id, state FROM ${s}.notes
     WHERE head AND author = session_user AND (publisher = $3 OR (publisher IS NULL AND machine = $1 AND kb = $2))`,
    [origin.machine, origin.kb, origin.publisher],
  );
  return new Map(rows.map((r) => [r.id, r.state]));
}
